import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { serve } from '@hono/node-server';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { loadEnv } from '../../../src/config/env.ts';
import { migrate } from '../../../src/db/orm.ts';
import { createStripeEmulator } from '../../../src/dev/stripe-emulator/emulator.ts';
import { openDatabase } from '../../../src/host/modules.ts';
import { createOrPromoteAdmin } from '../../../src/modules/accounts/index.ts';
import { createLicense } from '../../../src/modules/licenses/index.ts';
import { LocalFileStore } from '../../../src/storage/local.ts';
import { TestClient } from '../../support/http-client.ts';
import { freePort } from '../../support/ports.ts';
import type { PrivatePostgres } from './postgres.ts';
import type { FaultRedis } from './redis.ts';
import type { FaultSmtp } from './smtp.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const STRIPE_KEY = 'sk_test_fault_suite';
const WEBHOOK_SECRET = 'whsec_fault_suite_secret';
/** TEST_TEMPLATE_DB names the migrated template inside the private cluster (default: the suite's own). */
const TEMPLATE = process.env.TEST_TEMPLATE_DB ? `${process.env.TEST_TEMPLATE_DB}_faults` : 'shop_template_faults';

/**
 * Short recovery times for the suite (the defaults are minutes): the sweeper looks every 2 s for work
 * missing for 5 s, and retry back-off is capped at 5 s (the attempts still cover the whole budget).
 */
export const QUICK_RECOVERY = {
  SWEEP_GRACE_SECONDS: '5',
  SWEEP_EVERY_SECONDS: '2',
  JOB_RETRY_MAX_DELAY_SECONDS: '5',
} as const;

const templates = new WeakMap<PrivatePostgres, Promise<void>>();

/** One migrated template per private cluster; every scenario clones it. */
function template(pg: PrivatePostgres): Promise<void> {
  let ready = templates.get(pg);
  if (!ready) {
    ready = (async () => {
      await pg.query(`create database ${TEMPLATE}`);
      const orm = await openDatabase(loadEnv({ DATABASE_URL: pg.urlOf(TEMPLATE) }));
      try {
        await migrate(orm);
      } finally {
        await orm.close(true);
      }
    })();
    templates.set(pg, ready);
  }
  return ready;
}

/** A web or worker process of the shop: `node src/main.ts web|worker`, as production runs it. */
export class ShopProcess {
  child: ChildProcess | undefined;
  tail = '';
  readonly url: string | undefined;
  readonly name: string;
  readonly mode: 'web' | 'worker';
  readonly env: Record<string, string>;
  readonly logFile: string;
  /** For a worker: whether it has started consuming (set by the shop; without it, 3 s after spawning). */
  ready: (() => Promise<boolean>) | undefined;
  constructor(name: string, mode: 'web' | 'worker', env: Record<string, string>, logFile: string) {
    this.name = name;
    this.mode = mode;
    this.env = env;
    this.logFile = logFile;
    this.url = env.PORT ? `http://127.0.0.1:${env.PORT}` : undefined;
  }

  get alive() {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the process; a web process is ready when /healthz answers 200, a worker when it consumes the mail queue. */
  async start(timeoutMs = 120_000) {
    const log = createWriteStream(this.logFile, { flags: 'a' });
    const child = spawn(process.execPath, ['src/main.ts', this.mode], {
      cwd: ROOT,
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const keep = (chunk: Buffer) => {
      log.write(chunk);
      this.tail = (this.tail + chunk.toString()).slice(-8_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.once('exit', () => log.end());
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.alive) throw new Error(`${this.name} exited at start:\n${this.tail}`);
      if (this.url) {
        if ((await fetch(`${this.url}/healthz`).catch(() => null))?.ok) return;
      } else if (this.ready) {
        if (await this.ready().catch(() => false)) return;
      } else if (Date.now() > deadline - timeoutMs + 3_000) {
        return;
      }
      if (Date.now() > deadline) throw new Error(`${this.name} did not start:\n${this.tail}`);
      await sleep(200);
    }
  }

  /** SIGKILL: no drain, no cleanup, as an OOM kill or a lost machine. */
  async kill() {
    await this.#signal('SIGKILL');
  }

  /** SIGTERM: the graceful shutdown. */
  async stop() {
    await this.#signal('SIGTERM');
  }

  async #signal(signal: NodeJS.Signals) {
    const child = this.child;
    if (!child || !this.alive) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill(signal);
    await Promise.race([exited, sleep(40_000)]);
    if (this.alive) {
      child.kill('SIGKILL');
      await exited;
    }
  }
}

export interface FaultShopOptions {
  pg: PrivatePostgres;
  redis: FaultRedis;
  smtp: FaultSmtp;
  webs?: number;
  workers?: number;
  /** Extra environment for every process (shorter retry budgets and the like). */
  env?: Record<string, string>;
  /** An existing database of the cluster (a restored copy) instead of a new clone of the template. */
  database?: string;
}

/**
 * The shop as it is deployed: `webs` web processes and `workers` worker processes on one database,
 * one Redis, one DATA_DIR and one SMTP server, with the project's Stripe emulator sending its webhooks
 * to the first web process.
 */
export async function startFaultShop(options: FaultShopOptions) {
  const { pg, redis, smtp } = options;
  let database = options.database;
  if (!database) {
    await template(pg);
    database = `shop_faults_${randomBytes(4).toString('hex')}`;
    await pg.query(`create database ${database} template ${TEMPLATE}`);
  }
  const databaseUrl = pg.urlOf(database);
  const dataDir = mkdtempSync(join(tmpdir(), 'shop-faults-data-'));
  const logDir = mkdtempSync(join(tmpdir(), 'shop-faults-logs-'));

  const webPorts = await Promise.all(Array.from({ length: options.webs ?? 2 }, () => freePort()));
  const stripePort = await freePort();
  const stripeUrl = `http://127.0.0.1:${stripePort}`;
  const appUrl = `http://127.0.0.1:${webPorts[0]}`;
  const emulator = createStripeEmulator({
    publicUrl: stripeUrl,
    webhookUrl: `${appUrl}/api/stripe/webhook`,
    webhookSecret: WEBHOOK_SECRET,
    retry: { attempts: 20, delayMs: 500 },
    apiKey: STRIPE_KEY,
  });
  const stripeServer = serve({ fetch: emulator.app.fetch, port: stripePort, hostname: '127.0.0.1' });

  const env: Record<string, string> = {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    SMTP_URL: smtp.url,
    STRIPE_SECRET_KEY: STRIPE_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_URL: stripeUrl,
    AUTH_SECRET: randomBytes(32).toString('hex'),
    DATA_DIR: dataDir,
    APP_URL: appUrl,
    TRUST_PROXY_HEADER: 'x-forwarded-for',
    EXPORT_GROUP_NAME: '障害試験',
    LOG_LEVEL: process.env.FAULTS_LOG_LEVEL ?? 'info',
    SENTRY_DSN: '',
    ...QUICK_RECOVERY,
    ...options.env,
  };
  const webs = webPorts.map(
    (port, i) => new ShopProcess(`web${i + 1}`, 'web', { ...env, PORT: String(port) }, join(logDir, `web${i + 1}.log`)),
  );
  const workers = Array.from(
    { length: options.workers ?? 2 },
    (_, i) => new ShopProcess(`worker${i + 1}`, 'worker', env, join(logDir, `worker${i + 1}.log`)),
  );
  const processes = [...webs, ...workers];
  /** Workers are ready when the mail queue counts as many consumers as there are live worker processes. */
  const consumers = async () => {
    const connection = new Redis(redis.url, { maxRetriesPerRequest: 1, lazyConnect: true });
    connection.on('error', () => undefined);
    const queue = new Queue('mail', { connection, prefix: 'shop' });
    try {
      return await queue.getWorkersCount();
    } finally {
      await queue.close().catch(() => undefined);
      connection.disconnect();
    }
  };
  for (const worker of workers) {
    worker.ready = async () => (await consumers()) >= workers.filter((w) => w.alive).length;
  }
  try {
    for (const web of webs) await web.start();
    await Promise.all(workers.map((w) => w.start()));
  } catch (error) {
    await Promise.all(processes.map((p) => p.kill()));
    throw error;
  }

  /** A statement on the shop's database through a connection of its own (survives restarts between calls). */
  const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => pg.query<T>(text, params, database);

  let ipSeq = 0;
  /** A cookie-keeping API client, as the SPA, talking to one web process over HTTP from an address of its own. */
  const client = (web: ShopProcess = webs[0] as ShopProcess) => {
    ipSeq++;
    const app = {
      request: (path: string, init: RequestInit) => fetch(`${web.url}${path}`, { ...init, redirect: 'manual' }),
    };
    return new TestClient(app, `10.${(ipSeq >> 16) & 255}.${(ipSeq >> 8) & 255}.${ipSeq & 255}`);
  };

  return {
    database,
    databaseUrl,
    dataDir,
    logDir,
    env,
    webs,
    workers,
    processes,
    emulator,
    stripeUrl,
    appUrl,
    sql,
    client,
    /** A licence on sale, created through the licences module on the shop's database. */
    async createLicense(name = '障害試験ライセンス', price = 5500): Promise<number> {
      const orm = await openDatabase(loadEnv({ DATABASE_URL: databaseUrl }));
      try {
        const license = await createLicense(
          orm,
          new LocalFileStore(dataDir),
          { id: 'fault-suite', email: 'fault-suite' },
          { name, description: '', price },
          [],
        );
        return license.id;
      } finally {
        await orm.close(true);
      }
    },
    /** An administrator signed in through the API. */
    async admin(email = 'fault-admin@example.jp', password = 'fault-admin-pass-123') {
      const orm = await openDatabase(loadEnv({ DATABASE_URL: databaseUrl }));
      try {
        await createOrPromoteAdmin(orm, { email, password });
      } finally {
        await orm.close(true);
      }
      const admin = client();
      const login = await admin.login(email, password);
      if (login.status !== 200) throw new Error(`admin sign-in: ${login.status} ${await login.text()}`);
      return admin;
    },
    /** Every process's last log lines, for a failure message. */
    logs: () => processes.map((p) => `--- ${p.name}\n${p.tail.slice(-3_000)}`).join('\n'),
    async stop() {
      await Promise.all(processes.map((p) => p.stop()));
      emulator.close();
      await new Promise<void>((done) => {
        stripeServer.close(() => done());
        (stripeServer as import('node:http').Server).closeAllConnections?.();
      });
      await pg.query(`drop database if exists ${database} with (force)`).catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
      if (process.env.FAULTS_KEEP_LOGS !== '1') rmSync(logDir, { recursive: true, force: true });
    },
  };
}
export type FaultShop = Awaited<ReturnType<typeof startFaultShop>>;
