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

/** So that a dead server or connection costs seconds, never a stuck process (pg's default waits for ever). */
export interface PoolLimits {
  connectionTimeoutMillis?: number;
  idleInTransactionMs?: number;
}

const DEFAULT_POOL_LIMITS: Required<PoolLimits> = {
  connectionTimeoutMillis: 10_000,
  idleInTransactionMs: 60_000,
};

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

// Not `rollback to` a savepoint: the transaction goes on after that one.
const TRANSACTION_CONTROL = /^\s*(begin|start\s+transaction|commit|end|abort|rollback(?!\s+to\b))\b/i;

/** A dead connection released with its error, so pg-pool destroys it (Kysely would keep it checked out). */
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

// No startup `options` or session state: DATABASE_URL may be PgBouncer in transaction mode.

function pgPoolOptions(limits: PoolLimits) {
  return {
    connectionTimeoutMillis: limits.connectionTimeoutMillis ?? DEFAULT_POOL_LIMITS.connectionTimeoutMillis,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    onPoolCreated: (pool: PgPoolLike) => guardPool(pool),
  };
}

/** A role setting, not a per-session SET, so that every pooled server session picks it up. */
export async function applySessionLimits(directUrl: string, log: Pick<Logger, 'warn'>, limits: PoolLimits = {}) {
  const idleInTransactionMs = limits.idleInTransactionMs ?? DEFAULT_POOL_LIMITS.idleInTransactionMs;
  const client = new pg.Client({ connectionString: directUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    // SQL as text: a direct connection before the pool (and its Kysely) exists.
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

export async function poolStats(orm: Orm): Promise<{ total: number; idle: number; waiting: number } | undefined> {
  if (orm.config.get('driver') !== PostgreSqlDriver) return undefined;
  const pool = (await orm.em.getConnection().getNativeClient()) as PgPoolLike;
  return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

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
      // Locks held for one step only; CONCURRENTLY steps run outside any transaction (online-migration.ts).
      transactional: true,
      allOrNothing: false,
      generator: OnlineMigrationGenerator,
      fileName: (timestamp, name) => `${timestamp}_${name ?? 'migration'}`,
    },
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

export async function databaseAnswers(orm: Orm): Promise<boolean> {
  try {
    await ping(orm.em.fork());
    return true;
  } catch {
    return false;
  }
}

const MIGRATION_LOCK = 724513;
const MIGRATION_LOCK_POLL_MS = 250;

/** Transaction-scoped on a connection of its own, so the lock ends with it whatever happens, even behind a pooler. */
export async function withMigrationLock<T>(orm: Orm, lockUrl: string | undefined, work: () => Promise<T>): Promise<T> {
  if (orm.config.get('driver') !== PostgreSqlDriver || !lockUrl) return work(); // PGlite: one process owns DATA_DIR
  const client = new pg.Client({ connectionString: lockUrl, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    // Short tries holding no open transaction or portal: CREATE INDEX CONCURRENTLY in the migrating
    // process would wait for a waiter's snapshot, and the waiter for it, for ever.
    for (;;) {
      await client.query('begin');
      await client.query('set local idle_in_transaction_session_timeout = 0');
      // SQL as text: an advisory lock on a connection of its own.
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
  attempts?: number;
  pauseMs?: number;
}

/** A migration that hit lock_timeout rolls back and is tried again after a pause, letting the queries it waited for run. */
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

/** Every file of migrations/ already applied (the migrator would import them all to find nothing to do). */
function schemaIsCurrent(orm: Orm, executed: Set<string>): boolean {
  if (orm.config.get('migrations').migrationsList) return false;
  const files = readdirSync(migrationsPath).filter((file) => /^[^.].*(?<!\.d)\.ts$/.test(file));
  return files.every((file) => executed.has(file.replace(/\.ts$/, '')));
}

export function isEmbedded(env: Pick<Env, 'databaseUrl'>): boolean {
  return !env.databaseUrl;
}
