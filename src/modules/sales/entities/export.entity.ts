import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../../db/columns.ts';

/**
 * A CSV export an administrator asked for: queued → running → done (file, SHA-256) or failed. A batch
 * export (`batch`) froze its sales at creation (export_sales) and moved them 出力待ち → 処理中 in the
 * same transaction; completing it (`completedAt`) moves them to 登録済み.
 */
const ExportSchema = defineEntity({
  name: 'Export',
  tableName: 'exports',
  indexes: [{ name: 'exports_created_at_index', properties: ['createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    requestedBy: p.string().fieldName('requested_by'),
    requestedByEmail: p.string().length(254).fieldName('requested_by_email').nullable(),
    filters: p.json<Record<string, unknown>>(),
    encoding: p.string().length(16).default('utf-8'),
    replaceUnmappable: p.boolean().fieldName('replace_unmappable').default(false),
    batch: p.boolean().default(false),
    licenseName: p.string().length(100).fieldName('license_name').nullable(),
    state: p.string().length(16).default('queued'),
    // Rows written so far (progress) and, once counted, how many there will be.
    rowCount: p.integer().fieldName('row_count').default(0),
    totalRows: p.integer().fieldName('total_rows').nullable(),
    fileName: p.string().length(100).fieldName('file_name').nullable(),
    sha256: p.string().length(64).nullable(),
    error: p.text().nullable(),
    /** The reason and time of the job's last failed attempt while BullMQ retries it (cleared by a success). */
    lastError: p.text().fieldName('last_error').nullable(),
    lastErrorAt: p.datetime().fieldName('last_error_at').nullable(),
    createdAt: createdAt(),
    startedAt: p.datetime().fieldName('started_at').nullable(),
    finishedAt: p.datetime().fieldName('finished_at').nullable(),
    /** Refreshed by the job while it builds the file: a running export without one lately has no live job. */
    heartbeatAt: p.datetime().fieldName('heartbeat_at').nullable(),
    /** The process (INSTANCE_ID) that runs or last ran the build. */
    workerInstance: p.string().length(255).fieldName('worker_instance').nullable(),
    completedAt: p.datetime().fieldName('completed_at').nullable(),
    completedBy: p.string().length(254).fieldName('completed_by').nullable(),
  },
});
export class Export extends ExportSchema.class {}
ExportSchema.setClass(Export);

/** The sales a batch export froze when it was created, in file order. */
const ExportSaleSchema = defineEntity({
  name: 'ExportSale',
  tableName: 'export_sales',
  properties: {
    exportId: p.uuid().fieldName('export_id').primary(),
    saleId: p.integer().fieldName('sale_id').primary().index('export_sales_sale_id_index'),
  },
});
export class ExportSale extends ExportSaleSchema.class {}
ExportSaleSchema.setClass(ExportSale);
