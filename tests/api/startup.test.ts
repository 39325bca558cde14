import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { afterAll, expect, it } from 'vitest';
import { recentWorkers } from '../../src/modules/health/index.ts';
import { databaseUrl, TEST_PG_URL } from '../support/env.ts';
import { freePort } from '../support/ports.ts';
import { startPrivateRedis } from '../support/redis-server.ts';
import { createDatabase, startTestRuntime } from '../support/runtime.ts';
import { eventually } from '../support/wait.ts';

const root = resolve(import.meta.dirname, '../..');
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});
function onCleanup(cleanup: () => Promise<unknown> | unknown) {
  cleanups.push(async () => {
    try {
      await cleanup();
    } catch {
      // best effort
    }
  });
}

// Each test starts real processes; on a busy machine a start alone can take many seconds.
/** `src/main.ts <mode>` as `npm run start:web` / `start:worker` start it, in development mode. */
async function startShop(mode: 'web' | 'worker', env: Record<string, string>) {
  const port = await freePort();
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'shop-startup-'));
  if (!env.DATA_DIR) onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const child: ChildProcess = spawn(process.execPath, ['--import', './src/instrument.ts', 'src/main.ts', mode], {
    cwd: root,
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  onCleanup(stop);
  return {
    port,
    child,
    exited,
    stop,
    output: () => output,
    healthy: async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok === true,
  };
}

/** A TCP port that forwards to the shared PostgreSQL while open; nothing listens before `open()` or after `close()`. */
async function postgresProxy() {
  const port = await freePort();
  const target = new URL(TEST_PG_URL);
  let server: Server | undefined;
  const sockets = new Set<import('node:net').Socket>();
  const close = () =>
    new Promise<void>((done) => {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      const s = server;
      server = undefined;
      s ? s.close(() => done()) : done();
    });
  onCleanup(close);
  return {
    port,
    urlOf: (db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`,
    close,
    open: () =>
      new Promise<void>((done) => {
        server = createServer((socket) => {
          const upstream = connect(Number(target.port || 5432), target.hostname);
          sockets.add(socket).add(upstream);
          socket.pipe(upstream).pipe(socket);
          socket.on('error', () => upstream.destroy());
          upstream.on('error', () => socket.destroy());
        });
        server.listen(port, '127.0.0.1', () => done());
      }),
  };
}

const countLines = (output: string, text: string) => output.split('\n').filter((line) => line.includes(text)).length;

it('a web process started while PostgreSQL is unreachable logs, waits, and starts once it answers', async () => {
  const db = await createDatabase();
  onCleanup(() => db.drop());
  const proxy = await postgresProxy();
  const redis = await startPrivateRedis();
  onCleanup(() => redis.stop());
  const web = await startShop('web', { DATABASE_URL: proxy.urlOf(db.name), REDIS_URL: redis.url });
  await eventually(
    async () => countLines(web.output(), 'PostgreSQL unreachable; retrying') >= 2,
    40_000,
    `retry log lines (${web.output()})`,
  );
  expect(web.output()).toContain('PostgreSQL に接続できません');
  expect(web.child.exitCode).toBeNull();
  expect(await web.healthy()).toBe(false);

  await proxy.open();
  await eventually(web.healthy, 45_000, `web start after PostgreSQL came (${web.output()})`);
  expect(web.output()).toContain('PostgreSQL reachable');
  expect(await web.stop()).toBe(0);
}, 120_000);

it('a worker started while PostgreSQL is unreachable waits, runs, and reports losing and regaining PostgreSQL by itself', async () => {
  const db = await createDatabase();
  onCleanup(() => db.drop());
  const proxy = await postgresProxy();
  const redis = await startPrivateRedis();
  onCleanup(() => redis.stop());
  const worker = await startShop('worker', { DATABASE_URL: proxy.urlOf(db.name), REDIS_URL: redis.url });
  await eventually(
    async () => countLines(worker.output(), 'PostgreSQL unreachable; retrying') >= 2,
    40_000,
    `retry log lines (${worker.output()})`,
  );
  expect(worker.child.exitCode).toBeNull();

  await proxy.open();
  const client = new Redis(redis.url);
  onCleanup(() => client.quit());
  // The worker's health signal (the default queue prefix): database reachable, pool counters.
  const beat = await eventually(
    async () => (await recentWorkers(client, 'shop')).find((w) => w.database === 'ok'),
    45_000,
    `worker heartbeat (${worker.output()})`,
  );
  expect(beat.pool?.waiting).toBe(0);

  // PostgreSQL goes away under the running worker (every connection cut): its heartbeat and log say so,
  // and once PostgreSQL is back it reports itself healthy again by itself.
  await proxy.close();
  await eventually(
    async () => (await recentWorkers(client, 'shop')).some((w) => w.database !== 'ok'),
    45_000,
    'heartbeat reporting PostgreSQL unreachable',
  );
  expect(worker.output()).toContain('(PostgreSQL unreachable); jobs wait and retry');
  await proxy.open();
  await eventually(
    async () => (await recentWorkers(client, 'shop')).some((w) => w.database === 'ok'),
    45_000,
    'heartbeat reporting PostgreSQL reachable again',
  );
  expect(worker.output()).toContain('PostgreSQL reachable again');
  expect(worker.child.exitCode).toBeNull();
  expect(await worker.stop()).toBe(0);
  // A stopped worker takes its heartbeat with it.
  expect(await recentWorkers(client, 'shop')).toEqual([]);
}, 120_000);

it('a web process started while Redis is down logs, waits, and starts once Redis answers', async () => {
  const db = await createDatabase();
  onCleanup(() => db.drop());
  const redis = await startPrivateRedis();
  onCleanup(() => redis.stop());
  await redis.stop();
  const web = await startShop('web', { DATABASE_URL: db.url, REDIS_URL: redis.url });
  await eventually(
    async () => countLines(web.output(), 'Redis unreachable; retrying') >= 2,
    40_000,
    `retry log lines (${web.output()})`,
  );
  expect(web.child.exitCode).toBeNull();
  expect(await web.healthy()).toBe(false);
  await redis.start();
  await eventually(web.healthy, 45_000, `web start after Redis came (${web.output()})`);
  expect(await web.stop()).toBe(0);
}, 120_000);

it('refuses a Redis that may evict keys, in web and worker, saying how to fix it in Japanese and English; /readyz reports it', async () => {
  const db = await createDatabase();
  onCleanup(() => db.drop());
  const redis = await startPrivateRedis();
  onCleanup(() => redis.stop());
  const admin = new Redis(redis.url);
  onCleanup(() => admin.quit());
  await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');

  const shops = await Promise.all([
    startShop('web', { DATABASE_URL: db.url, REDIS_URL: redis.url }),
    startShop('worker', { DATABASE_URL: db.url, REDIS_URL: redis.url }),
  ]);
  for (const shop of shops) {
    expect(await shop.exited, shop.output()).toBe(1);
    const output = shop.output();
    expect(output).toContain('Redis の maxmemory-policy が allkeys-lru です');
    expect(output).toContain('Redis maxmemory-policy is allkeys-lru');
    expect(output).toContain('CONFIG SET maxmemory-policy noeviction');
    expect(output).toContain('redis.conf');
  }

  // A running process whose Redis is switched to evicting answers 503 with the reason.
  await admin.config('SET', 'maxmemory-policy', 'noeviction');
  const t = await startTestRuntime({ redisUrl: redis.url });
  onCleanup(() => t.stop());
  expect((await t.app.request('/readyz')).status).toBe(200);
  await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
  const ready = await t.app.request('/readyz');
  expect(ready.status).toBe(503);
  const body = await ready.json();
  expect(body.checks.database).toBe('ok');
  expect(body.checks.redis).toContain('CONFIG SET maxmemory-policy noeviction');
}, 120_000);

it('two web processes starting on one empty development database migrate and seed the demo data once', async () => {
  const name = `shop_pool_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  onCleanup(async () => {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  });
  const redis = await startPrivateRedis();
  onCleanup(() => redis.stop());
  const dataDir = mkdtempSync(join(tmpdir(), 'shop-startup-shared-'));
  onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { DATABASE_URL: databaseUrl(name), REDIS_URL: redis.url, DATA_DIR: dataDir };
  const [a, b] = await Promise.all([startShop('web', env), startShop('web', env)]);
  await eventually(async () => (await a.healthy()) && (await b.healthy()), 75_000, `both up (${a.output()}\n${b.output()})`);

  const seeded = [a, b].filter((p) => p.output().includes('demo accounts, shown only once'));
  expect(seeded).toHaveLength(1);
  const db = new Client({ connectionString: databaseUrl(name) });
  await db.connect();
  try {
    expect((await db.query('select count(*)::int as n from licenses')).rows[0].n).toBe(3);
    expect((await db.query('select count(*)::int as n from users')).rows[0].n).toBe(2);
  } finally {
    await db.end();
  }
  expect(a.child.exitCode).toBeNull();
  expect(b.child.exitCode).toBeNull();
  expect(await a.stop()).toBe(0);
  expect(await b.stop()).toBe(0);
}, 150_000);
