import { randomUUID } from 'node:crypto';
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { countAll, type DB, japanDayAfter, japanDayStart, jsonb, db as kysely } from '../../db/kysely.ts';
import { COUNT_CAP, containsPattern } from '../../db/like.ts';
import type { Em, Orm } from '../../db/orm.ts';
import type { AuditLogs, Json } from '../../db/schema.ts';
import { changesOf } from './changes.ts';
import { AuditLog } from './entities/audit-log.entity.ts';
import type { AuditVocabulary } from './labels.ts';
import type { AuditLogQuery } from './schemas.ts';

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

interface AuditRow {
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

function auditLogDto(words: AuditVocabulary, row: AuditRow) {
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
type AuditEb = ExpressionBuilder<DB & { a: AuditLogs }, 'a'>;

function auditWhere(query: AuditLogQuery, actors: string[] | null) {
  return (eb: AuditEb) => {
    const clauses: Expression<SqlBool>[] = [];
    if (actors) clauses.push(eb('a.actor_email', 'in', actors));
    if (query.action) clauses.push(eb('a.action', '=', query.action));
    if (query.target_type) clauses.push(eb('a.target_type', '=', query.target_type));
    if (query.target_id) clauses.push(eb('a.target_id', '=', query.target_id));
    if (query.from) clauses.push(eb('a.created_at', '>=', japanDayStart(query.from)));
    if (query.to) clauses.push(eb('a.created_at', '<', japanDayAfter(query.to)));
    return eb.and(clauses);
  };
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
  const logs = kysely(em);
  const count = await logs
    .selectFrom((eb) =>
      eb
        .selectFrom('audit_logs as a')
        .select(sql.lit(1).as('one'))
        .where(where)
        .limit(COUNT_CAP + 1)
        .as('capped'),
    )
    .select((eb) => countAll(eb).as('n'))
    .executeTakeFirst();
  // The page's ids first (an index walk however deep the page), then those rows' snapshots. A status
  // move's `sale_ids` (20,000 of them, for a big one) stay in PostgreSQL: only their count and the
  // first few leave it.
  const rows: AuditRow[] = await logs
    .with('page', (db) =>
      db
        .selectFrom('audit_logs as a')
        .select(['a.id', 'a.created_at'])
        .where(where)
        .orderBy('a.created_at', 'desc')
        .orderBy('a.id', 'desc')
        .limit(query.per_page)
        .offset((query.page - 1) * query.per_page),
    )
    .selectFrom('page')
    .innerJoin('audit_logs as a', 'a.id', 'page.id')
    .select((eb) => [
      'a.id',
      'a.actor_id',
      'a.actor_email',
      'a.action',
      'a.target_type',
      'a.target_id',
      withoutSaleIds(eb.ref('a.before')).as('before'),
      withoutSaleIds(eb.ref('a.after')).as('after'),
      'a.created_at',
      eb.fn<number | null>('jsonb_array_length', [saleIds(eb)]).as('sale_count'),
      // The first few only: a status move's 20,000 ids stay in PostgreSQL.
      // SQL as text: a set-returning function WITH ORDINALITY and an ordered aggregate over its columns,
      // which the builder cannot name (only the ids expression, typed, goes in).
      eb
        .selectFrom(sql<{ v: Json; n: number }>`jsonb_array_elements(${saleIds(eb)}) with ordinality`.as(sql`e(v, n)`))
        .select(sql<unknown>`jsonb_agg(e.v order by e.n)`.as('ids'))
        .where('e.n', '<=', LISTED_SALES)
        .as('first_sale_ids'),
    ])
    .orderBy('page.created_at', 'desc')
    .orderBy('page.id', 'desc')
    .execute();
  const n = count?.n ?? 0;
  return {
    audit_logs: rows.map((row) => auditLogDto(words, row)),
    total: Math.min(n, COUNT_CAP),
    total_capped: n > COUNT_CAP,
    ...paging,
  };
}

/** An entry's `sale_ids` (the sales a status move moved: the same before and after), or null. */
function saleIds(eb: AuditEb) {
  const ids = (column: 'a.after' | 'a.before') => {
    const value = sql<Json>`${eb.ref(column)} -> 'sale_ids'`;
    return eb
      .case()
      .when(eb.fn('jsonb_typeof', [value]), '=', 'array')
      .then(value)
      .end();
  };
  return eb.fn.coalesce(ids('a.after'), ids('a.before'));
}
const withoutSaleIds = (column: Expression<Json | null>) =>
  sql<unknown>`case when jsonb_typeof(${column}) = 'object' then ${column} - 'sale_ids' else ${column} end`;

/**
 * The sales an audit entry moved (for the sales list's 「この操作の対象の売上」), or null when there is
 * no such entry. An entry that moved none gives [].
 */
export async function auditedSaleIds(em: Em, auditId: string): Promise<number[] | null> {
  const row = await kysely(em)
    .selectFrom('audit_logs as a')
    .select((eb) => eb.fn.coalesce(saleIds(eb), jsonb([])).as('ids'))
    .where('a.id', '=', auditId)
    .executeTakeFirst();
  if (!row) return null;
  const ids = typeof row.ids === 'string' ? JSON.parse(row.ids) : row.ids;
  return Array.isArray(ids) ? ids.map(Number).filter((id) => Number.isSafeInteger(id) && id > 0) : [];
}

/**
 * The distinct values of a column that leads an index, one index probe each (a skip scan: cheap while
 * the values are few, however many rows), optionally only those containing `part` (any case).
 */
async function distinctValues(em: Em, column: 'action' | 'target_type' | 'actor_email', part?: string): Promise<string[]> {
  const rows = await kysely(em)
    .withRecursive('t(v)', (db) =>
      db
        // The first value (in parentheses of its own: ORDER BY and LIMIT of the union's first part).
        .selectFrom((eb) =>
          eb
            .selectFrom('audit_logs')
            .select((s) => s.ref(column).as('v'))
            .orderBy(column)
            .limit(1)
            .as('first'),
        )
        .select('first.v')
        .unionAll(
          db
            .selectFrom('t')
            .select((eb) =>
              eb
                .selectFrom('audit_logs as a')
                .select((s) => s.ref(`a.${column}`).as('v'))
                .whereRef(`a.${column}`, '>', 't.v')
                .orderBy(`a.${column}`)
                .limit(1)
                .as('v'),
            )
            .where('t.v', 'is not', null),
        ),
    )
    .selectFrom('t')
    .select('v')
    .where('v', 'is not', null)
    .$if(part !== undefined, (q) => q.where('v', 'ilike', containsPattern(part ?? '')))
    .execute();
  return rows.map((r) => r.v as string);
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
