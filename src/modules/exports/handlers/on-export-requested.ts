import type { EventHandler } from '../../../jobs/context.ts';
import { buildExport } from '../service.ts';

/** ExportRequested → the CSV file (idempotent: a finished export is not built again). */
export const onExportRequested: EventHandler<'ExportRequested'> = (ctx, event) =>
  buildExport(ctx.em, ctx.env.dataDir, ctx.env.exportGroupName, event.payload.exportId);
