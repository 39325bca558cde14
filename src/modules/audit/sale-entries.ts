import type { Em } from '../../db/orm.ts';

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

const WITHOUT_SALE_IDS = (column: string) =>
  `case when jsonb_typeof(${column}) = 'object' then ${column} - 'sale_ids' else ${column} end`;

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
  const rows = await em.execute<
    {
      id: string;
      actor_id: string | null;
      actor_email: string | null;
      action: string;
      before: unknown;
      after: unknown;
      created_at: Date | string;
    }[]
  >(
    `select a.id, a.actor_id, a.actor_email, a.action, ${WITHOUT_SALE_IDS('a.before')} as "before",
            ${WITHOUT_SALE_IDS('a.after')} as "after", a.created_at
       from audit_logs a
      where (a.after -> 'sale_ids') @> ?::jsonb or (a.target_type = 'sale' and a.target_id = ?)
      order by a.created_at, a.id
      limit ?`,
    [JSON.stringify([saleId]), String(saleId), limit],
  );
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
