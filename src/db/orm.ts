import { mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityClass, Options } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, PostgreSqlDriver, type SqlEntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { Env } from '../config/env.ts';
import type { Logger } from '../lib/logger.ts';
import { ping } from './kysely.ts';
import { isLockTimeout, OnlineMigrationGenerator } from './online-migration.ts';

export type Orm = MikroORM;
export type Em = SqlEntityManager;

const migrationsPath = resolve(import.meta.dirname, '../../migrations');

export type DbEnv = Pick<Env, 'databaseUrl' | 'dataDir'>;

/** Limits of the PostgreSQL pool (node-postgres), so a dead server or connection costs seconds, never a stuck process. */
export interface PoolLimits {
  /** How long a query waits for a free or new connection before it fails (pg's default waits for ever). */
  connectionTimeoutMillis?: number;
  /** The server ends a session left idle inside a transaction this long, releasing its locks. */
  idleInTransactionMs?: number;
}

export const DEFAULT_POOL_LIMITS: Required<PoolLimits> = {
  connectionTimeoutMillis: 10_000,
  idleInTransactionMs: 60_000,
};

/** The slice of a pg client this file touches (pg's own types are not a dependency of ours). */
interface PgClientLike {
  query: (...args: unknown[]) => unknown;
  release?: (error?: Error | boolean) => void;
}
interface PgPoolLike {
  on(event: 'connect', listener: (client: PgClientLike) => void): unknown;
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** BEGIN, COMMIT, ROLLBACK (not `rollback to` a savepoint: the transaction goes on after that one). */
const TRANSACTION_CONTROL = /^\s*(begin|start\s+transaction|commit|end|abort|rollback(?!\s+to\b))\b/i;

/**
 * Kysely (MikroORM's SQL layer) releases a transaction's connection only after its BEGIN, COMMIT or
 * ROLLBACK succeeded: when the connection died (server restarted, backend terminated), ROLLBACK fails
 * and the client would stay checked out for ever — ten of those and every query of the process waits.
 * Here a client whose transaction control statement fails is released with the error at once, which
 * makes pg-pool destroy it (a later release by Kysely is a no-op). Other failed queries need nothing:
 * Kysely releases those clients, and pg-pool drops any that is no longer queryable.
 */
export function guardPool(pool: PgPoolLike): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client);
    client.query = (...args: unknown[]) => {
      const result = query(...args);
      const text = typeof args[0] === 'string' ? args[0] : undefined;
      if (!text || !TRANSACTION_CONTROL.test(text) || !(result instanceof Promise)) return result;
      return result.catch((error: unknown) => {
        const release = client.release;
        if (release) {
          client.release = () => undefined;
          release(error instanceof Error ? error : new Error(String(error)));
        }
        throw error;
      });
    };
  });
}

/**
 * node-postgres pool options: timeouts and TCP keep-alive. No startup `options` and no session state:
 * DATABASE_URL may be PgBouncer in transaction mode, which refuses the one and scatters the other
 * over its server connections. Server-side limits are role settings (applySessionLimits).
 */
function pgPoolOptions(limits: PoolLimits) {
  return {
    connectionTimeoutMillis: limits.connectionTimeoutMillis ?? DEFAULT_POOL_LIMITS.connectionTimeoutMillis,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    onPoolCreated: (pool: PgPoolLike) => guardPool(pool),
  };
}

/**
 * Makes the server end sessions left idle inside a transaction (releasing their locks) for the shop's
 * role in the shop's database: `ALTER ROLE current_user IN DATABASE … SET`, which every new server
 * session picks up, pooled or not — a per-session SET would land on one pooled connection only.
 * A role may set its own defaults; where it may not, the operator is told the statement to run.
 * Runs on a direct connection, before the pool opens its own.
 */
export async function applySessionLimits(directUrl: string, log: Pick<Logger, 'warn'>, limits: PoolLimits = {}) {
  const idleInTransactionMs = limits.idleInTransactionMs ?? DEFAULT_POOL_LIMITS.idleInTransactionMs;
  const client = new pg.Client({ connectionString: directUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    // SQL as text: the server's catalogue and ALTER ROLE, on a direct connection before the pool (and its Kysely) exists.
    const { rows } = await client.query<{ configured: boolean }>(
      `select exists (
         select 1 from pg_db_role_setting s join pg_database d on d.oid = s.setdatabase
         where s.setrole = (select oid from pg_roles where rolname = current_user) and d.datname = current_database()
           and $1 = any(s.setconfig)) as configured`,
      [`idle_in_transaction_session_timeout=${idleInTransactionMs}`],
    );
    if (rows[0]?.configured) return;
    await client.query(
      `do $$ begin execute format('alter role %I in database %I set idle_in_transaction_session_timeout = %L',
         current_user, current_database(), '${idleInTransactionMs}'); end $$`,
    );
  } catch (error) {
    log.warn(
      'could not set idle_in_transaction_session_timeout for the role; run as an administrator: ALTER ROLE <role> IN DATABASE <db> SET idle_in_transaction_session_timeout = 60000',
      { error: error instanceof Error ? error.message : String(error) },
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The pg pool's counters (PostgreSQL server only; undefined on embedded PGlite). */
export async function poolStats(orm: Orm): Promise<{ total: number; idle: number; waiting: number } | undefined> {
  if (orm.config.get('driver') !== PostgreSqlDriver) return undefined;
  const pool = (await orm.em.getConnection().getNativeClient()) as PgPoolLike;
  return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

/**
 * MikroORM on PostgreSQL (DATABASE_URL) or, when it is unset, on embedded PGlite under DATA_DIR.
 * `entities` is the explicit list the host collects from the modules (src/host/modules.ts).
 */
/** PGlite and its MikroORM driver, loaded only for an embedded database (no DATABASE_URL). */
let embedded: { PgliteDriver: typeof import('@mikro-orm/pglite').PgliteDriver; pg_trgm: unknown } | undefined;
async function loadEmbedded() {
  const [{ PgliteDriver }, { pg_trgm }] = await Promise.all([
    import('@mikro-orm/pglite'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
  ]);
  embedded ??= { PgliteDriver, pg_trgm };
}

export function ormConfig(
  env: DbEnv,
  entities: readonly EntityClass[],
  overrides: Partial<Options> = {},
  limits: PoolLimits = {},
): Options {
  const common: Partial<Options> = {
    entities: [...entities],
    extensions: [Migrator],
    migrations: {
      path: migrationsPath,
      glob: '!(*.d).{js,ts}',
      emit: 'ts',
      snapshot: false,
      silent: true,
      // One transaction per migration, never all of them in one: locks are held for one step, and a
      // step that builds an index CONCURRENTLY runs outside any transaction (online-migration.ts).
      transactional: true,
      allOrNothing: false,
      generator: OnlineMigrationGenerator,
      fileName: (timestamp, name) => `${timestamp}_${name ?? 'migration'}`,
    },
    // Queries must run on a forked EntityManager (one per request and per job).
    allowGlobalContext: false,
    debug: false,
  };
  if (env.databaseUrl) {
    return {
      ...common,
      driver: PostgreSqlDriver,
      clientUrl: env.databaseUrl,
      pool: { min: 0, max: 10 },
      driverOptions: pgPoolOptions(limits),
      ...overrides,
    } as Options;
  }
  if (!embedded) throw new Error('embedded PGlite is opened through initOrm');
  const { PgliteDriver, pg_trgm } = embedded;
  const dir = join(env.dataDir, 'pgdata');
  mkdirSync(env.dataDir, { recursive: true });
  // pg_trgm (the search indexes) is a contrib extension PGlite loads on request.
  return { ...common, driver: PgliteDriver, dbName: dir, driverOptions: { extensions: { pg_trgm } }, ...overrides } as Options;
}

export async function initOrm(
  env: DbEnv,
  entities: readonly EntityClass[],
  overrides: Partial<Options> = {},
  limits: PoolLimits = {},
): Promise<Orm> {
  if (!env.databaseUrl) await loadEmbedded();
  return (await MikroORM.init(ormConfig(env, entities, overrides, limits))) as Orm;
}

/** Whether the database answers a query now. */
export async function databaseAnswers(orm: Orm): Promise<boolean> {
  try {
    await ping(orm.em.fork());
    return true;
  } catch {
    return false;
  }
}

const MIGRATION_LOCK = 724513;
/** How often a process waiting for another's migrations tries the lock again. */
const MIGRATION_LOCK_POLL_MS = 250;

/**
 * Runs `work` while holding the migration lock, so several processes starting at once migrate and
 * seed one after the other. The lock is transaction-scoped (`pg_advisory_xact_lock`) and held by an
 * open transaction on a connection of its own to `lockUrl` (DATABASE_DIRECT_URL): it ends with that
 * transaction or connection, whatever happens, even when the URL is a transaction-mode pooler.
 */
export async function withMigrationLock<T>(orm: Orm, lockUrl: string | undefined, work: () => Promise<T>): Promise<T> {
  if (orm.config.get('driver') !== PostgreSqlDriver || !lockUrl) return work(); // PGlite: one process owns DATA_DIR
  const client = new pg.Client({ connectionString: lockUrl, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    // Taken with short tries, each in a transaction of its own that ends at once when the lock is
    // busy: a process waiting here must hold no open transaction, because CREATE INDEX CONCURRENTLY in
    // the migrating process waits for every transaction older than its snapshot — a waiter blocked
    // inside its transaction would wait for the migrations, and they for it, for ever.
    // Without parameters (the simple query protocol): a parameterised query leaves its portal, and with
    // it a snapshot, open in the idle transaction, which CREATE INDEX CONCURRENTLY would wait for too.
    for (;;) {
      await client.query('begin');
      await client.query('set local idle_in_transaction_session_timeout = 0');
      // SQL as text: an advisory lock on a connection of its own, which no query builder says.
      const { rows } = await client.query<{ locked: boolean }>(`select pg_try_advisory_xact_lock(${MIGRATION_LOCK}) as locked`);
      if (rows[0]?.locked) break;
      await client.query('rollback');
      await sleep(MIGRATION_LOCK_POLL_MS);
    }
    const result = await work();
    await client.query('commit');
    return result;
  } finally {
    // Closing the connection ends the transaction and its lock, had commit not been reached.
    await client.end().catch(() => undefined);
  }
}

export interface MigrateOptions {
  log?: Pick<Logger, 'warn'>;
  /** How many times a migration that gave up on a lock (lock_timeout) is tried again. */
  attempts?: number;
  /** The first pause between attempts (doubling, at most 10 s). */
  pauseMs?: number;
}

/**
 * Applies pending migrations, each in its own transaction with a short lock_timeout. A migration that
 * could not get its lock in time rolls back and is tried again after a pause (the queries it waited
 * for run meanwhile); after `attempts` the error stops the start, naming what blocked it.
 */
export async function migrate(orm: Orm, options: MigrateOptions = {}): Promise<string[]> {
  const attempts = options.attempts ?? 30;
  const before = new Set((await orm.migrator.getExecuted()).map((m) => m.name));
  if (schemaIsCurrent(orm, before)) return [];
  for (let attempt = 1; ; attempt++) {
    try {
      await orm.migrator.up();
      break;
    } catch (error) {
      if (!isLockTimeout(error) || attempt >= attempts) throw error;
      const pauseMs = Math.min((options.pauseMs ?? 1_000) * 2 ** (attempt - 1), 10_000);
      options.log?.warn('a migration waited too long for a table lock; trying again', {
        attempt,
        pauseMs,
        error: error instanceof Error ? error.message : String(error),
      });
      await sleep(pauseMs);
    }
  }
  return (await orm.migrator.getExecuted()).map((m) => m.name).filter((name) => !before.has(name));
}

/**
 * Every file of migrations/ already applied: the migrator's `up` would import all of them to find
 * nothing to do, a noticeable part of a start-up. (A given `migrationsList`, as tests pass, is not checked here.)
 */
function schemaIsCurrent(orm: Orm, executed: Set<string>): boolean {
  if (orm.config.get('migrations').migrationsList) return false;
  const files = readdirSync(migrationsPath).filter((file) => /^[^.].*(?<!\.d)\.ts$/.test(file));
  return files.every((file) => executed.has(file.replace(/\.ts$/, '')));
}

export function isEmbedded(env: Pick<Env, 'databaseUrl'>): boolean {
  return !env.databaseUrl;
}
