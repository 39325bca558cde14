import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../../db/columns.ts';

/** A CSV export an administrator asked for: queued → running → done (file) or failed. */
export const ExportSchema = defineEntity({
  name: 'Export',
  tableName: 'exports',
  properties: {
    id: p.uuid().primary(),
    requestedBy: p.string().fieldName('requested_by'),
    filters: p.json<Record<string, unknown>>(),
    encoding: p.string().length(16).default('utf-8'),
    state: p.string().length(16).default('queued'),
    rowCount: p.integer().fieldName('row_count').default(0),
    fileName: p.string().length(100).fieldName('file_name').nullable(),
    error: p.text().nullable(),
    createdAt: createdAt(),
    finishedAt: p.datetime().fieldName('finished_at').nullable(),
  },
});
export class Export extends ExportSchema.class {}
ExportSchema.setClass(Export);
