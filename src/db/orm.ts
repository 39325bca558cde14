import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { EntityClass, Options } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { PgliteDriver } from '@mikro-orm/pglite';
import { MikroORM, PostgreSqlDriver, type SqlEntityManager } from '@mikro-orm/postgresql';
import type { Env } from '../config/env.ts';

export type Orm = MikroORM;
export type Em = SqlEntityManager;

const migrationsPath = resolve(import.meta.dirname, '../../migrations');

export type DbEnv = Pick<Env, 'databaseUrl' | 'dataDir'>;

/**
 * MikroORM on PostgreSQL (DATABASE_URL) or, when it is unset, on embedded PGlite under DATA_DIR.
 * `entities` is the explicit list the host collects from the modules (src/host/modules.ts).
 */
export function ormConfig(env: DbEnv, entities: readonly EntityClass[], overrides: Partial<Options> = {}): Options {
  const common: Partial<Options> = {
    entities: [...entities],
    extensions: [Migrator],
    migrations: {
      path: migrationsPath,
      glob: '!(*.d).{js,ts}',
      emit: 'ts',
      snapshot: false,
      silent: true,
      transactional: true,
      allOrNothing: true,
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
      ...overrides,
    } as Options;
  }
  const dir = join(env.dataDir, 'pgdata');
  mkdirSync(env.dataDir, { recursive: true });
  // pg_trgm (the search indexes) is a contrib extension PGlite loads on request.
  return { ...common, driver: PgliteDriver, dbName: dir, driverOptions: { extensions: { pg_trgm } }, ...overrides } as Options;
}

export async function initOrm(env: DbEnv, entities: readonly EntityClass[], overrides: Partial<Options> = {}): Promise<Orm> {
  return (await MikroORM.init(ormConfig(env, entities, overrides))) as Orm;
}

export async function migrate(orm: Orm): Promise<string[]> {
  const done = await orm.migrator.up();
  return done.map((m) => m.name);
}

export function isEmbedded(env: Pick<Env, 'databaseUrl'>): boolean {
  return !env.databaseUrl;
}
