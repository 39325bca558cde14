/**
 * npm run bench — speed and memory figures of the real stack on this machine (never a timed test).
 * Boots the app against PostgreSQL (TEST_DATABASE_URL's server, a fresh database) and Redis, serves
 * it on a local port, and measures with bounded request loops on loopback only.
 */
import { randomBytes } from 'node:crypto';
import { serve } from '@hono/node-server';
import { Client } from 'pg';
import { createApp } from '../src/app.ts';
import { loadEnv } from '../src/config/env.ts';
import type { Em } from '../src/db/orm.ts';
import { transact } from '../src/events/outbox.ts';
import { boot } from '../src/host/boot.ts';
import { createLogger } from '../src/lib/logger.ts';
import { createUser } from '../src/modules/accounts/index.ts';
import { createLicense } from '../src/modules/licenses/index.ts';

const PG = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = `shop_bench_${randomBytes(4).toString('hex')}`;
// Targets on this 2-core machine, with the load generator in the same process as the app.
const targets = { catalogueP95Ms: 100, loginP95Ms: 150, rssMb: 512 };

async function admin(sql: string) {
  const c = new Client({ connectionString: PG });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function load(name: string, total: number, concurrency: number, request: (i: number) => Promise<Response>) {
  const times: number[] = [];
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t0 = performance.now();
        const res = await request(i);
        await res.arrayBuffer();
        if (!res.ok) failures++;
        times.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  const row = {
    name,
    requests: total,
    concurrency,
    failures,
    rps: Math.round(total / seconds),
    p50: +percentile(times, 50).toFixed(1),
    p95: +percentile(times, 95).toFixed(1),
    p99: +percentile(times, 99).toFixed(1),
  };
  console.log(JSON.stringify(row));
  return row;
}

const url = new URL(PG);
url.pathname = `/${dbName}`;
await admin(`create database ${dbName}`);
const env = loadEnv({
  ...process.env,
  DATABASE_URL: url.toString(),
  DATA_DIR: `/tmp/${dbName}`,
  PORT: '0',
  LOG_LEVEL: 'silent',
  NODE_ENV: 'test',
  TRUST_PROXY_HEADER: 'x-forwarded-for',
});
const runtime = await boot(env, { mode: 'web', log: createLogger('silent'), queuePrefix: dbName });
const server = serve({ fetch: createApp(runtime.deps).fetch, port: 0, hostname: '127.0.0.1' });
await new Promise((r) => server.once('listening', r));
const port = (server.address() as { port: number }).port;
const base = `http://127.0.0.1:${port}`;
try {
  for (let i = 0; i < 40; i++) {
    await createLicense(
      runtime.deps.orm,
      env.dataDir,
      { id: 'bench', email: 'bench' },
      { name: `ライセンス ${i}`, description: '説明', price: 1000 + i },
      [],
    );
  }
  await transact(runtime.deps.orm.em as Em, (tx) =>
    createUser(tx, { email: 'bench@example.jp', password: 'bench-pass-123', lastName: 'b', firstName: 'c', emailVerified: true }),
  );
  const csrf = await fetch(`${base}/api/csrf-token`);
  const token = csrf.headers.getSetCookie()[0]?.split(';')[0] ?? '';
  const login = (forwarded: string) =>
    fetch(`${base}/api/login`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie: token,
        'x-xsrf-token': decodeURIComponent(token.split('=')[1] ?? ''),
        'x-forwarded-for': forwarded,
      },
      body: JSON.stringify({ email: 'bench@example.jp', password: 'bench-pass-123' }),
    });
  const session = (await login('192.0.2.1')).headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');

  await load('warm-up', 200, 10, () => fetch(`${base}/api/licenses`, { headers: { cookie: session } }));
  const catalogue = await load('GET /api/licenses (20 per page)', 2_000, 20, () =>
    fetch(`${base}/api/licenses`, { headers: { cookie: session } }),
  );
  await load('GET /healthz', 2_000, 20, () => fetch(`${base}/healthz`));
  const signIn = await load('POST /api/login (argon2id)', 200, 4, (i) => login(`198.51.100.${i % 250}`));
  const rssMb = Math.round(process.memoryUsage().rss / 1024 / 1024);
  console.log(JSON.stringify({ name: 'memory', rssMb, heapUsedMb: Math.round(process.memoryUsage().heapUsed / 1024 / 1024) }));
  const verdict = {
    catalogueP95: catalogue.p95 <= targets.catalogueP95Ms,
    loginP95: signIn.p95 <= targets.loginP95Ms,
    rss: rssMb <= targets.rssMb,
  };
  console.log(JSON.stringify({ name: 'targets', targets, met: verdict }));
  process.exitCode = Object.values(verdict).every(Boolean) ? 0 : 1;
} finally {
  server.close();
  (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
  await runtime.stop();
  await admin(`drop database if exists ${dbName} with (force)`);
}
