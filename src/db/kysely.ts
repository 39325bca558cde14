import type { SqlEntityManager } from '@mikro-orm/postgresql';
import {
  type Compilable,
  type CompiledQuery,
  DummyDriver,
  type ExpressionBuilder,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from 'kysely';
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

/** A Kysely that only compiles (never connects): for typed queries run by readQuery (src/db/orm.ts) straight on the pool. */
export const queries: Db = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (kysely) => new PostgresIntrospector(kysely),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** The cheapest question to the database (readiness, start-up): throws when it does not answer. */
export async function ping(em: SqlEntityManager): Promise<void> {
  await db(em)
    .selectNoFrom((eb) => eb.lit(1).as('alive'))
    .execute();
}

/** A compiled statement: what readQuery runs. */
export interface Statement<R> extends Compilable<R> {
  /** Its text and parameters as one string (a cache key for its rows). */
  readonly key: string;
}

/**
 * A typed query compiled once, its parameters bound per call: for the statements every request sends
 * (the session check, the catalogue), where building and compiling a Kysely query each time would cost
 * more CPU than the rest of the request's own work (docs/decisions/0037-lean-requests.md). `build` is
 * called once with a stand-in for each argument; the stand-ins' places in the compiled parameters are
 * where each call's values go. An argument must therefore reach the query as a plain parameter value
 * (`where('s.token', '=', token)`, `limit(n)`), never shape it: a value that changes the text (a
 * column choice, an optional condition) belongs in a separate prepared statement.
 */
export function prepared<A extends unknown[], R>(build: (...args: A) => Compilable<R>): (...args: A) => Statement<R> {
  let compiled: CompiledQuery<R> | undefined;
  let places: number[] = [];
  return (...args: A) => {
    if (!compiled) {
      const standIns = args.map((_, i) => `\u0000prepared-argument-${i}\u0000`) as A;
      compiled = build(...standIns).compile();
      places = compiled.parameters.map((p) => (typeof p === 'string' ? standIns.indexOf(p as never) : -1));
      const missing = standIns.filter((s) => !compiled?.parameters.includes(s));
      if (missing.length) throw new Error(`prepared: an argument does not reach the statement as a parameter: ${compiled.sql}`);
    }
    const { sql: text, query, queryId } = compiled;
    const parameters = compiled.parameters.map((p, i) => ((places[i] ?? -1) < 0 ? p : args[places[i] as number]));
    return new BoundStatement<R>({ sql: text, query, queryId, parameters });
  };
}

/** A prepared statement with this call's values (a class: its methods are shared, not made per call). */
class BoundStatement<R> implements Statement<R> {
  readonly #bound: CompiledQuery<R>;

  constructor(bound: CompiledQuery<R>) {
    this.#bound = bound;
  }

  compile(): CompiledQuery<R> {
    return this.#bound;
  }

  /** Made only when a cache asks for it (the session check and the catalogue without caches never do). */
  get key(): string {
    return JSON.stringify([this.#bound.sql, this.#bound.parameters]);
  }
}
