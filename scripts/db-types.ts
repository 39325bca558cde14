/**
 * npm run db:types — the Kysely database interface (src/db/schema.ts), generated from the migrated
 * schema: a scratch database is created, every migration applied, kysely-codegen reads it, and the
 * scratch database is dropped. tests/unit/db-types.test.ts generates it again from the test template
 * and fails when the checked-in file differs (a migration without `npm run db:types`).
 *
 * The PostgreSQL server: TEST_DATABASE_URL (as the tests and the benchmark), else the local default.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Kysely } from 'kysely';
import { ColumnTypeNode, generate, IdentifierNode, PostgresDialect, UnionExpressionNode } from 'kysely-codegen';
import pg from 'pg';
import { loadEnv } from '../src/config/env.ts';
import { migrate } from '../src/db/orm.ts';
import { openDatabase } from '../src/host/modules.ts';

export const SCHEMA_FILE = resolve(import.meta.dirname, '../src/db/schema.ts');

/** Tables that are no part of the shop's queries (the migrator's own bookkeeping). */
const EXCLUDED = 'mikro_orm_migrations';

/**
 * The interface as kysely-codegen writes it for the shop's connections. MikroORM's pg type parsers
 * (also on PGlite) return date, timestamp and interval values as the server's text, so a selected
 * timestamp is a `string` — written as a `Date` or a string.
 */
export async function generateSchema(db: Kysely<unknown>): Promise<string> {
  const dialect = new PostgresDialect({ dateParser: 'string' });
  const text = new IdentifierNode('string');
  const written = new UnionExpressionNode([new IdentifierNode('Date'), new IdentifierNode('string')]);
  dialect.adapter.definitions.Timestamp = new ColumnTypeNode(text, written, written);
  dialect.adapter.scalars.interval = text;
  const output = await generate({ db, dialect, excludePattern: EXCLUDED, outFile: null, typeOnlyImports: true });
  return `${output.trimEnd()}\n`;
}

/** Runs the migrations in a scratch database of the server at `serverUrl` and generates the interface. */
export async function schemaFromMigrations(serverUrl: string): Promise<string> {
  const name = `shop_db_types_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const orm = await openDatabase(loadEnv({ DATABASE_URL: url.toString() }));
    try {
      await migrate(orm);
      return await generateSchema(orm.em.fork().getKysely() as Kysely<unknown>);
    } finally {
      await orm.close(true);
    }
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
    await admin.end();
  }
}

if (import.meta.main) {
  const server = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  writeFileSync(SCHEMA_FILE, await schemaFromMigrations(server));
  console.log(`書き出しました (written): ${SCHEMA_FILE}`);
}
