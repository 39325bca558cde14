import { sql } from 'kysely';
import { jsonb, db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import { entryColumns } from './service.ts';

/** An audit entry about one sale, as its module reads it back (the moved sales' id lists left out). */
export interface SaleAuditEntry {
  id: string;
  actorId: string | null;
  actorEmail: string | null;
  action: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  createdAt: Date;
}

const asObject = (value: unknown): Record<string, unknown> | null => {
  const parsed = typeof value === 'string' ? JSON.parse(value) : value;
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
};

/**
 * The entries naming sale `saleId`, oldest first: those whose `sale_ids` hold it (status moves,
 * 差し戻し, batch exports and their completion: jsonb containment through `audit_logs_sale_ids_index`)
 * and those recorded on the sale itself (`target_type = 'sale'`: receipts, refunds).
 */
export async function auditEntriesOfSale(em: Em, saleId: number, limit = 200): Promise<SaleAuditEntry[]> {
  const rows = await kysely(em)
    .selectFrom('audit_logs as a')
    .select(entryColumns)
    .where((eb) =>
      eb.or([
        // The expression of audit_logs_sale_ids_index (jsonb_path_ops), so that index finds them.
        eb(sql`(${eb.ref('a.after')} -> 'sale_ids')`, '@>', jsonb([saleId])),
        eb.and([eb('a.target_type', '=', 'sale'), eb('a.target_id', '=', String(saleId))]),
      ]),
    )
    .orderBy('a.created_at')
    .orderBy('a.id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    actorId: row.actor_id,
    actorEmail: row.actor_email,
    action: row.action,
    before: asObject(row.before),
    after: asObject(row.after),
    createdAt: new Date(row.created_at),
  }));
}
