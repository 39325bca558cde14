// The audit module's public surface: every administrator change is recorded through it and read back
// by administrators at GET /api/audit-logs.
import type { AppModule } from '../../http/context.ts';
import { AuditLog } from './entities/audit-log.entity.ts';
import { auditRoutes } from './routes.ts';

export { type Actor, auditedSaleIds, recordAudit } from './service.ts';

export const audit = { name: 'audit', api: auditRoutes, entities: [AuditLog] } satisfies AppModule;
