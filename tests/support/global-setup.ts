import { Client } from 'pg';
import { loadEnv } from '../../src/config/env.ts';
import { migrate } from '../../src/db/orm.ts';
import { openDatabase } from '../../src/host/modules.ts';
import { databaseUrl, TEMPLATE_DB, TEST_PG_URL } from './env.ts';

/** Builds one migrated template database; every test file clones it (CREATE DATABASE … TEMPLATE). */
/** Each test project may call this; the template is built once per run (the projects share the process). */
const once = globalThis as { shopTestTemplate?: Promise<void> };

export default function setup() {
  once.shopTestTemplate ??= buildTemplate();
  return once.shopTestTemplate;
}

async function buildTemplate() {
  const admin = new Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${TEMPLATE_DB} with (force)`);
    await admin.query(`create database ${TEMPLATE_DB}`);
  } finally {
    await admin.end();
  }
  const orm = await openDatabase(loadEnv({ DATABASE_URL: databaseUrl(TEMPLATE_DB) }));
  try {
    await migrate(orm);
  } finally {
    await orm.close(true);
  }
}
