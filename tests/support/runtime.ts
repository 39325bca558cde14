import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createApp } from '../../src/app.ts';
import { loadEnv } from '../../src/config/env.ts';
import { boot, type Mode } from '../../src/host/boot.ts';
import { createLogger, type Logger } from '../../src/lib/logger.ts';
import { assertAnswerMatchesContract } from './contract.ts';
import { databaseUrl, TEMPLATE_DB, TEST_PG_URL, TEST_REDIS_URL } from './env.ts';

export async function createDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `shop_t_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name} template ${TEMPLATE_DB}`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: databaseUrl(name),
    async drop() {
      const c = new Client({ connectionString: TEST_PG_URL });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

export interface TestRuntimeOptions {
  mode?: Mode;
  smtpUrl?: string;
  redisUrl?: string;
  webRoot?: string;
  env?: Record<string, string>;
  /** The runtime's logger (default: silent, or debug on stdout with TEST_LOG=1), e.g. to read its warnings. */
  log?: Logger;
  /** A second web process of the same deployment: same database, Redis prefix, data and secret. */
  shareWith?: { db: { name: string; url: string }; env: { dataDir: string; authSecret?: string }; prefix: string };
}

/**
 * The real application against a fresh PostgreSQL database (cloned from the migrated template),
 * the real Redis with a queue prefix of its own, and — in `all` mode — the real workers.
 */
export async function startTestRuntime(options: TestRuntimeOptions = {}) {
  const shared = options.shareWith;
  const db = shared ? { ...shared.db, drop: async () => undefined } : await createDatabase();
  const dataDir = shared ? shared.env.dataDir : mkdtempSync(join(tmpdir(), 'shop-test-'));
  const env = loadEnv({
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    REDIS_URL: options.redisUrl ?? TEST_REDIS_URL,
    SMTP_URL: options.smtpUrl,
    DATA_DIR: dataDir,
    APP_URL: 'http://localhost:3000',
    AUTH_SECRET: shared?.env.authSecret ?? randomBytes(32).toString('hex'),
    TRUST_PROXY_HEADER: 'x-forwarded-for',
    ...options.env,
  });
  const prefix = shared?.prefix ?? `t${randomBytes(4).toString('hex')}`;
  const runtime = await boot(env, {
    mode: options.mode ?? 'web',
    log: options.log ?? createLogger(process.env.TEST_LOG === '1' ? 'debug' : 'silent'),
    queuePrefix: prefix,
    relayIntervalMs: 100,
    webRoot: options.webRoot,
  });
  const app = checkedAgainstContract(createApp(runtime.deps));
  return {
    app,
    runtime,
    env,
    db,
    prefix,
    async stop() {
      await runtime.stop();
      await db.drop();
      if (!shared) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
export type TestRuntime = Awaited<ReturnType<typeof startTestRuntime>>;

/**
 * The app whose `request()` checks every /api answer against the OpenAPI document, as TestClient's do
 * (docs/decisions/0041-openapi-contract.md): a test calling `app.request()` directly is checked too.
 */
function checkedAgainstContract<A extends { request: (...args: never[]) => Response | Promise<Response> }>(app: A): A {
  const request = app.request.bind(app) as (
    input: RequestInfo | URL,
    init?: RequestInit,
    ...rest: unknown[]
  ) => Promise<Response>;
  app.request = (async (input: RequestInfo | URL, init?: RequestInit, ...rest: unknown[]) => {
    const res = await request(input, init, ...rest);
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const url = input instanceof Request ? input.url : String(input);
    await assertAnswerMatchesContract(method.toUpperCase(), url, res);
    return res;
  }) as A['request'];
  return app;
}
