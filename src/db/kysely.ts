import type { SqlEntityManager } from '@mikro-orm/postgresql';
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { DB, Json } from './schema.ts';

export type { DB } from './schema.ts';
export type Db = Kysely<DB>;

/**
 * Typed queries (decision 0035): the Kysely of MikroORM's connection, typed by the interface that
 * `npm run db:types` generates from the migrated schema (schema.ts). Inside `em.transactional` /
 * `transact()` it runs on that transaction's connection, so what it writes commits or rolls back with
 * the entities and the outbox events of the same transaction; on any other EntityManager it takes a
 * pooled connection per query. Parameters are sent unnamed (no prepared statement is kept): fine for a
 * transaction-mode PgBouncer.
 */
export function db(em: SqlEntityManager): Db {
  return em.getKysely<DB>();
}

/** The transaction's time (`now()`), for a timestamp column or a comparison. */
export const now = () => sql<string>`now()`;

/** `count(*)` as an integer (PostgreSQL's bigint would arrive as text). */
export const countAll = <D, TB extends keyof D>(eb: ExpressionBuilder<D, TB>) => eb.cast<number>(eb.fn.countAll(), 'integer');

/** `ms` milliseconds before the transaction's time. */
export const millisecondsAgo = (ms: number) => sql<string>`now() - (${ms} * interval '1 millisecond')`;

/** A value as `jsonb` (for comparing with or writing to a jsonb column). */
export const jsonb = (value: unknown) => sql<Json>`${JSON.stringify(value)}::jsonb`;

/**
 * Japan dates (YYYY-MM-DD): the first instant of the day, 00:00 JST, and of the day after — a filter
 * `from ≤ t < the day after to` includes both ends.
 */
export const japanDayStart = (date: string) => sql<string>`(${date}::date)::timestamp at time zone 'Asia/Tokyo'`;
export const japanDayAfter = (date: string) => sql<string>`((${date}::date + 1)::timestamp at time zone 'Asia/Tokyo')`;

/** The cheapest question to the database (readiness, start-up): throws when it does not answer. */
export async function ping(em: SqlEntityManager): Promise<void> {
  await db(em)
    .selectNoFrom((eb) => eb.lit(1).as('alive'))
    .execute();
}
