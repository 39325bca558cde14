import { randomUUID } from 'node:crypto';
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { countUpTo, type DB, japanDayAfter, japanDayStart, jsonb, db as kysely } from '../../db/kysely.ts';
import { COUNT_CAP, containsPattern } from '../../db/like.ts';
import type { Em, Orm } from '../../db/orm.ts';
import type { Json } from '../../db/schema.ts';
import { changesOf } from './changes.ts';
import { AuditLog } from './entities/audit-log.entity.ts';
import type { AuditVocabulary } from './labels.ts';
import type { AuditFilters, AuditLogQuery } from './schemas.ts';
import { listedSaleNames, targetNames } from './target-names.ts';

export interface Actor {
  id: string;
  email: string;
}

/** Inside the transaction that makes the change; actor null only when nobody signed in (shown as 不明). */
export function recordAudit(
  tx: Em,
  actor: Actor | null,
  entry: { action: string; targetType: string; targetId: string | number; before?: unknown; after?: unknown },
): void {
  tx.create(AuditLog, {
    id: randomUUID(),
    actorId: actor?.id ?? null,
    actorEmail: actor?.email ?? null,
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
  /** Microseconds kept: the export's keyset goes on from it. */
  created_at: string;
  sale_count: number | null;
  first_sale_ids: unknown;
}

const LISTED_SALES = 10;

function salesOf(row: AuditRow, names: ReadonlyMap<string, string> | undefined) {
  if (row.sale_count === null || row.sale_count === undefined) return null;
  const first = Array.isArray(row.first_sale_ids) ? row.first_sale_ids.map(Number).filter(Number.isSafeInteger) : [];
  const count = Number(row.sale_count);
  const firstNames = first.map((id) => names?.get(String(id)) ?? `売上ID ${id}`);
  return { count, first_ids: first, first_names: firstNames, more: count > first.length };
}

/** What an entry's records are called (target-names.ts); without them the ids. */
interface EntryNames {
  target?: string;
  sales?: ReadonlyMap<string, string>;
}

export function auditLogDto(words: AuditVocabulary, row: AuditRow, names: EntryNames = {}) {
  return {
    id: row.id,
    actor_id: row.actor_id,
    actor_email: row.actor_email,
    action: row.action,
    action_label: words.actionLabel(row.action),
    target_type: row.target_type,
    target_label: words.targetLabel(row.target_type),
    target_id: row.target_id,
    target_name: names.target ?? row.target_id,
    changes: changesOf(words, row.target_type, row.before, row.after),
    sales: salesOf(row, names.sales),
    created_at: new Date(row.created_at).toISOString(),
  };
}

type Entries = DB & { a: DB['audit_logs'] };
type EntriesEb = ExpressionBuilder<Entries, 'a'>;

export function auditFilter(query: AuditFilters, actors: string[] | null) {
  return (eb: EntriesEb): Expression<SqlBool> => {
    const terms: Expression<SqlBool>[] = [];
    if (actors) terms.push(eb('a.actor_email', 'in', actors));
    if (query.action) terms.push(eb('a.action', '=', query.action));
    if (query.target_type) terms.push(eb('a.target_type', '=', query.target_type));
    if (query.target_id) terms.push(eb('a.target_id', '=', query.target_id));
    if (query.from) terms.push(eb('a.created_at', '>=', japanDayStart(query.from)));
    if (query.to) terms.push(eb('a.created_at', '<', japanDayAfter(query.to)));
    return eb.and(terms);
  };
}

export async function listAuditLogs(orm: Orm, query: AuditLogQuery, words: AuditVocabulary) {
  const em = orm.em.fork() as Em;
  const paging = { page: query.page, per_page: query.per_page };
  // A few administrators make all the entries: the e-mail part becomes the addresses it matches, read from the index.
  const actors = query.actor ? await distinctValues(em, 'actor_email', query.actor) : null;
  if (actors?.length === 0) return { audit_logs: [], total: 0, total_capped: false, ...paging };
  const filter = auditFilter(query, actors);
  const count = await countUpTo(
    kysely(em),
    kysely(em)
      .selectFrom('audit_logs as a')
      .select((s) => s.lit(1).as('one'))
      .where(filter),
    COUNT_CAP,
  );
  // The page's ids first (an index walk however deep the page); a big move's `sale_ids` stay in PostgreSQL.
  const rows: AuditRow[] = await kysely(em)
    .with('page', (qb) =>
      qb
        .selectFrom('audit_logs as a')
        .select(['a.id', 'a.created_at'])
        .where(filter)
        .orderBy('a.created_at', 'desc')
        .orderBy('a.id', 'desc')
        .limit(query.per_page)
        .offset((query.page - 1) * query.per_page),
    )
    .selectFrom('page')
    .innerJoin('audit_logs as a', 'a.id', 'page.id')
    .select((eb) => {
      const ids = saleIdsOf(eb);
      return [
        ...entryColumns(eb),
        eb.fn<number | null>('jsonb_array_length', [ids]).as('sale_count'),
        eb
          .selectFrom(sql<{ v: Json; n: number }>`jsonb_array_elements(${ids}) with ordinality`.as<'e'>(sql`e(v, n)`))
          .select((s) =>
            s.fn
              .agg<Json>('jsonb_agg', [s.ref('e.v')])
              .orderBy('e.n')
              .as('ids'),
          )
          .where('e.n', '<=', LISTED_SALES)
          .as('first_sale_ids'),
      ];
    })
    .orderBy('page.created_at', 'desc')
    .orderBy('page.id', 'desc')
    .execute();
  const n = count;
  const targets = await targetNames(em, words, rows);
  const sales = await listedSaleNames(em, words, rows);
  return {
    audit_logs: rows.map((row, i) => auditLogDto(words, row, { target: targets[i], sales })),
    total: Math.min(n, COUNT_CAP),
    total_capped: n > COUNT_CAP,
    ...paging,
  };
}

const saleIdsIn = (snapshot: Expression<Json | null>) =>
  sql<Json | null>`case when jsonb_typeof(${snapshot} -> 'sale_ids') = 'array' then ${snapshot} -> 'sale_ids' end`;

export const saleIdsOf = (eb: EntriesEb) => eb.fn.coalesce(saleIdsIn(eb.ref('a.after')), saleIdsIn(eb.ref('a.before')));

const withoutSaleIds = (snapshot: Expression<Json | null>) =>
  sql<Json | null>`case when jsonb_typeof(${snapshot}) = 'object' then ${snapshot} - 'sale_ids' else ${snapshot} end`;

export const entryColumns = (eb: EntriesEb) =>
  [
    'a.id',
    'a.actor_id',
    'a.actor_email',
    'a.action',
    'a.target_type',
    'a.target_id',
    withoutSaleIds(eb.ref('a.before')).as('before'),
    withoutSaleIds(eb.ref('a.after')).as('after'),
    'a.created_at',
  ] as const;

export async function auditedSaleIds(em: Em, auditId: string): Promise<number[] | null> {
  const row = await kysely(em)
    .selectFrom('audit_logs as a')
    .select((eb) => eb.fn.coalesce(saleIdsOf(eb), jsonb([])).as('ids'))
    .where('a.id', '=', auditId)
    .executeTakeFirst();
  if (!row) return null;
  const ids = typeof row.ids === 'string' ? JSON.parse(row.ids) : row.ids;
  return Array.isArray(ids) ? ids.map(Number).filter((id) => Number.isSafeInteger(id) && id > 0) : [];
}

/** A skip scan: one index probe per distinct value, cheap while the values are few. */
export async function distinctValues(em: Em, column: 'action' | 'target_type' | 'actor_email', part?: string): Promise<string[]> {
  const rows = await kysely(em)
    .withRecursive('t(v)', (qb) =>
      qb
        .selectNoFrom((eb) => eb.selectFrom('audit_logs as a').select(`a.${column}`).orderBy(`a.${column}`).limit(1).as('v'))
        .unionAll((union) =>
          union
            .selectFrom('t')
            .select((eb) =>
              eb
                .selectFrom('audit_logs as a')
                .select(`a.${column}`)
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
    .$if(part !== undefined && part !== '', (qb) => qb.where('v', 'ilike', containsPattern(part ?? '')))
    .execute();
  return rows.map((r) => r.v as string);
}

export async function auditLogOptions(orm: Orm, words: AuditVocabulary) {
  const em = orm.em.fork() as Em;
  const [actions, targetTypes] = [await distinctValues(em, 'action'), await distinctValues(em, 'target_type')];
  return {
    actions: actions.sort(words.actionOrder).map((action) => ({ action, label: words.actionLabel(action) })),
    target_types: targetTypes.sort(words.targetOrder).map((type) => ({ target_type: type, label: words.targetLabel(type) })),
  };
}
