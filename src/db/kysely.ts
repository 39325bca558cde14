import type { SqlEntityManager } from '@mikro-orm/postgresql';
import { type Expression, type ExpressionBuilder, type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { DB, Json } from './schema.ts';

export type { DB } from './schema.ts';
export type Db = Kysely<DB>;

/** Runs on the transaction's connection inside `transact()`; parameters unnamed, fine for a transaction-mode PgBouncer (decision 0035). */
export function db(em: SqlEntityManager): Db {
  return em.getKysely<DB>();
}

export const now = () => sql<string>`now()`;

/** A timestamp as Japan time written by PostgreSQL (`2026/11/28 21:03:00`): no Date or Intl per cell of a large CSV. */
export const japanTimeText = (column: Expression<unknown>, format = 'YYYY/MM/DD HH24:MI:SS') =>
  sql<string>`to_char(${column} at time zone 'Asia/Tokyo', ${sql.lit(format)})`;

/** PostgreSQL's bigint would arrive as text. */
export const countAll = <D, TB extends keyof D>(eb: ExpressionBuilder<D, TB>) => eb.cast<number>(eb.fn.countAll(), 'integer');

/** A list's total, counted no further than `cap + 1` (the list then says 「…件以上」): `rows` selects anything. */
export async function countUpTo<D, TB extends keyof D, O>(db: Db, rows: SelectQueryBuilder<D, TB, O>, cap: number) {
  const row = await db
    .selectFrom(rows.limit(cap + 1).as('capped'))
    .select((eb) => countAll(eb).as('n'))
    .executeTakeFirst();
  return row?.n ?? 0;
}

export const millisecondsAgo = (ms: number) => sql<string>`now() - (${ms} * interval '1 millisecond')`;

export const jsonb = (value: unknown) => sql<Json>`${JSON.stringify(value)}::jsonb`;

/** 00:00 JST of the day and of the day after: `from ≤ t < the day after to` includes both ends. */
export const japanDayStart = (date: string) => sql<string>`(${date}::date)::timestamp at time zone 'Asia/Tokyo'`;
export const japanDayAfter = (date: string) => sql<string>`((${date}::date + 1)::timestamp at time zone 'Asia/Tokyo')`;

export async function ping(em: SqlEntityManager): Promise<void> {
  await db(em)
    .selectNoFrom((eb) => eb.lit(1).as('alive'))
    .execute();
}
