import type { Kysely } from 'kysely';
import type { Em } from './orm.ts';
import type { DB } from './schema.ts';

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
export function db(em: Em): Db {
  return em.getKysely<DB>();
}
