import { randomUUID } from 'node:crypto';
import { COUNT_CAP, containsPattern } from '../../db/like.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { changesOf } from './changes.ts';
import { AuditLog } from './entities/audit-log.entity.ts';
import type { AuditVocabulary } from './labels.ts';
import type { AuditFilters, AuditLogQuery } from './schemas.ts';

export interface Actor {
  id: string;
  email: string;
}

/** Records an administrator's change; call it inside the transaction that makes the change. */
export function recordAudit(
  tx: Em,
  actor: Actor,
  entry: { action: string; targetType: string; targetId: string | number; before?: unknown; after?: unknown },
): void {
  tx.create(AuditLog, {
    id: randomUUID(),
    actorId: actor.id,
    actorEmail: actor.email,
    action: entry.action,
    targetType: entry.targetType,
    targetId: String(entry.targetId),
    before: (entry.before ?? null) as Record<string, unknown> | null,
    after: (entry.after ?? null) as Record<string, unknown> | null,
    createdAt: new Date(),
  });
}

export interface AuditRow {
  id: string;
  actor_id: string | null;
  actor_email: string | null;
  action: string;
  target_type: string;
  target_id: string;
  before: unknown;
  after: unknown;
  created_at: Date | string;
  /** How many sales the entry moved (its `sale_ids`), and the first few: never the whole list. */
  sale_count: number | null;
  first_sale_ids: unknown;
}

/** Sales an entry names on the screen; the rest are a link away (GET /api/sales?audit_id=…). */
export const LISTED_SALES = 10;

/** The sales an entry moved, as the screen shows them: how many, the first LISTED_SALES, whether there are more. */
function salesOf(row: AuditRow) {
  if (row.sale_count === null || row.sale_count === undefined) return null;
  const first = Array.isArray(row.first_sale_ids) ? row.first_sale_ids.map(Number).filter(Number.isSafeInteger) : [];
  const count = Number(row.sale_count);
  return { count, first_ids: first, more: count > first.length };
}

export function auditLogDto(words: AuditVocabulary, row: AuditRow) {
  return {
    id: row.id,
    actor_id: row.actor_id,
    actor_email: row.actor_email,
    action: row.action,
    action_label: words.actionLabel(row.action),
    target_type: row.target_type,
    target_label: words.targetLabel(row.target_type),
    target_id: row.target_id,
    changes: changesOf(words, row.target_type, row.before, row.after),
    sales: salesOf(row),
    created_at: new Date(row.created_at).toISOString(),
  };
}

export type AuditLogView = ReturnType<typeof auditLogDto>;

/**
 * The WHERE of the audit log list. `actors` are the e-mails the actor filter matched. Dates are Japan
 * days, from 00:00 JST, both ends included.
 */
export function auditWhere(query: AuditFilters, actors: string[] | null): { sql: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (actors) {
    clauses.push(`a.actor_email in (${actors.map(() => '?').join(', ')})`);
    params.push(...actors);
  }
  if (query.action) {
    clauses.push('a.action = ?');
    params.push(query.action);
  }
  if (query.target_type) {
    clauses.push('a.target_type = ?');
    params.push(query.target_type);
  }
  if (query.target_id) {
    clauses.push('a.target_id = ?');
    params.push(query.target_id);
  }
  if (query.from) {
    clauses.push("a.created_at >= (?::date)::timestamp at time zone 'Asia/Tokyo'");
    params.push(query.from);
  }
  if (query.to) {
    clauses.push("a.created_at < ((?::date + 1)::timestamp at time zone 'Asia/Tokyo')");
    params.push(query.to);
  }
  return { sql: clauses.length ? `where ${clauses.join(' and ')}` : '', params };
}

/** Administrators' changes, newest first, with the total (counted up to COUNT_CAP, then `total_capped`). */
export async function listAuditLogs(orm: Orm, query: AuditLogQuery, words: AuditVocabulary) {
  const em = orm.em.fork() as Em;
  const paging = { page: query.page, per_page: query.per_page };
  // A few administrators make all the entries: the part of an e-mail becomes the addresses it matches
  // (read from the index), which then find their entries through the index as well.
  const actors = query.actor ? await distinctValues(em, 'actor_email', query.actor) : null;
  if (actors?.length === 0) return { audit_logs: [], total: 0, total_capped: false, ...paging };
  const where = auditWhere(query, actors);
  const [count] = await em.execute<{ n: number }[]>(
    `select count(*)::int as n from (select 1 from audit_logs a ${where.sql} limit ${COUNT_CAP + 1}) capped`,
    where.params,
  );
  // The page's ids first (an index walk however deep the page), then those rows' snapshots. A status
  // move's `sale_ids` (20,000 of them, for a big one) stay in PostgreSQL: only their count and the
  // first few leave it.
  const rows = await em.execute<AuditRow[]>(
    `with page as (select a.id, a.created_at from audit_logs a ${where.sql} order by a.created_at desc, a.id desc limit ? offset ?)
     select a.id, a.actor_id, a.actor_email, a.action, a.target_type, a.target_id,
            ${WITHOUT_SALE_IDS('a.before')} as "before", ${WITHOUT_SALE_IDS('a.after')} as "after", a.created_at,
            jsonb_array_length(moved.ids) as sale_count,
            (select jsonb_agg(e.v order by e.n) from jsonb_array_elements(moved.ids) with ordinality e(v, n) where e.n <= ?)
              as first_sale_ids
       from page join audit_logs a on a.id = page.id
       cross join lateral (select ${SALE_IDS} as ids) moved
      order by page.created_at desc, page.id desc`,
    [...where.params, query.per_page, (query.page - 1) * query.per_page, LISTED_SALES],
  );
  const n = count?.n ?? 0;
  return {
    audit_logs: rows.map((row) => auditLogDto(words, row)),
    total: Math.min(n, COUNT_CAP),
    total_capped: n > COUNT_CAP,
    ...paging,
  };
}

/** An entry's `sale_ids` (the sales a status move moved: the same before and after), or null. */
export const SALE_IDS = `coalesce(
  case when jsonb_typeof(a.after -> 'sale_ids') = 'array' then a.after -> 'sale_ids' end,
  case when jsonb_typeof(a.before -> 'sale_ids') = 'array' then a.before -> 'sale_ids' end)`;
export const WITHOUT_SALE_IDS = (column: string) =>
  `case when jsonb_typeof(${column}) = 'object' then ${column} - 'sale_ids' else ${column} end`;

/**
 * The sales an audit entry moved (for the sales list's 「この操作の対象の売上」), or null when there is
 * no such entry. An entry that moved none gives [].
 */
export async function auditedSaleIds(em: Em, auditId: string): Promise<number[] | null> {
  const [row] = await em.execute<{ ids: unknown }[]>(
    `select coalesce(${SALE_IDS}, '[]'::jsonb) as ids from audit_logs a where a.id = ?`,
    [auditId],
  );
  if (!row) return null;
  const ids = typeof row.ids === 'string' ? JSON.parse(row.ids) : row.ids;
  return Array.isArray(ids) ? ids.map(Number).filter((id) => Number.isSafeInteger(id) && id > 0) : [];
}

/**
 * The distinct values of a column that leads an index, one index probe each (a skip scan: cheap while
 * the values are few, however many rows), optionally only those containing `part` (any case).
 */
export async function distinctValues(em: Em, column: 'action' | 'target_type' | 'actor_email', part?: string): Promise<string[]> {
  const rows = await em.execute<{ v: string }[]>(
    `with recursive t(v) as (
       (select ${column} from audit_logs order by ${column} limit 1)
       union all
       select (select a.${column} from audit_logs a where a.${column} > t.v order by a.${column} limit 1) from t where t.v is not null
     ) select v from t where v is not null${part ? ' and v ilike ?' : ''}`,
    part ? [containsPattern(part)] : [],
  );
  return rows.map((r) => r.v);
}

/** What the screen's filters offer: the actions and record types the log holds, with their Japanese names. */
export async function auditLogOptions(orm: Orm, words: AuditVocabulary) {
  const em = orm.em.fork() as Em;
  const [actions, targetTypes] = [await distinctValues(em, 'action'), await distinctValues(em, 'target_type')];
  return {
    actions: actions.sort(words.actionOrder).map((action) => ({ action, label: words.actionLabel(action) })),
    target_types: targetTypes.sort(words.targetOrder).map((type) => ({ target_type: type, label: words.targetLabel(type) })),
  };
}
