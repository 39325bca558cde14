import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { serve } from '@hono/node-server';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadEnv } from '../../src/config/env.ts';
import { createStripeEmulator, type StripeEmulator } from '../../src/dev/stripe-emulator/emulator.ts';
import { migrateShop, openDatabase } from '../../src/host/modules.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { fetchFrom, startHaproxy } from '../support/haproxy.ts';
import { TestClient } from '../support/http-client.ts';
import { png } from '../support/images.ts';
import { startPgBouncer } from '../support/pgbouncer.ts';
import { freePort } from '../support/ports.ts';
import { startRedisWithSentinel } from '../support/redis-sentinel.ts';
import { S3RVER_KEYS, startS3 } from '../support/s3.ts';
import { RECEIPT_SUBJECT, until, VERIFY_SUBJECT } from './support/flows.ts';
import { ACCOUNT_NOTICES } from './support/ledger.ts';
import { type PrivatePostgres, startPrivatePostgres } from './support/postgres.ts';
import { QUICK_RECOVERY, ShopProcess } from './support/shop.ts';
import { type FaultSmtp, startFaultSmtp } from './support/smtp.ts';

/**
 * The shop deployed as a real shop is (issue [11], README "Scaling out"): two web hosts and one worker
 * host that share no disk, files in S3-compatible storage (s3rver, which checks signatures), PostgreSQL
 * through PgBouncer in its default transaction mode (migrations, locks and the change feed on the
 * direct URL), Redis with a replica watched by three Sentinels, HAProxy in front with its default
 * health check and no retries — deploy/haproxy.cfg itself, adapted only in addresses and certificate
 * (clients speak HTTPS to it, as in production). Under a mixed load of browsing, sign-ins, registrations, purchases,
 * picture uploads and exports, both web hosts and the worker are restarted one after the other and
 * Redis fails over. Then the ledger: no request failed; every sale, e-mail, picture and export exactly
 * once and reachable from every host; nothing on any host's disk.
 */

const STRIPE_KEY = 'sk_test_scale_out';
const WEBHOOK_SECRET = 'whsec_scale_out_secret';
const PASSWORD = 'kumo-umi-sora-42';
const ADMIN = { email: 'scale-admin@example.jp', password: 'scale-admin-pass-123' };

let pg: PrivatePostgres;
let bouncer: Awaited<ReturnType<typeof startPgBouncer>>;
let redis: Awaited<ReturnType<typeof startRedisWithSentinel>>;
let s3: Awaited<ReturnType<typeof startS3>>;
let smtp: FaultSmtp;
let haproxy: Awaited<ReturnType<typeof startHaproxy>>;
let emulator: StripeEmulator;
let stripeServer: Server;
let webs: ShopProcess[] = [];
let worker: ShopProcess;
const dirs: string[] = [];
const DATABASE = 'shop_scale_out';

/** A Redis connection through the Sentinels, as the shop makes it. */
const sentinelRedis = () => {
  const client = new Redis({
    sentinels: redis.sentinelPorts.map((port) => ({ host: '127.0.0.1', port })),
    name: redis.name,
    maxRetriesPerRequest: 3,
  });
  client.on('error', () => undefined);
  return client;
};

async function onQueues<T>(work: (queue: Queue, name: string) => Promise<T>): Promise<Record<string, T>> {
  const connection = sentinelRedis();
  const result: Record<string, T> = {};
  try {
    for (const name of ['mail', 'payments', 'exports']) {
      const queue = new Queue(name, { connection, prefix: 'shop' });
      try {
        result[name] = await work(queue, name);
      } finally {
        await queue.close();
      }
    }
  } finally {
    connection.disconnect();
  }
  return result;
}

const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => pg.query<T>(text, params, DATABASE);

const tempDir = (tag: string) => {
  const dir = mkdtempSync(join(tmpdir(), `shop-scale-${tag}-`));
  dirs.push(dir);
  return dir;
};

beforeAll(async () => {
  [pg, redis, s3, smtp] = await Promise.all([
    startPrivatePostgres(),
    startRedisWithSentinel({ sentinelCount: 3 }),
    startS3('shop-scale-out'),
    startFaultSmtp(),
  ]);
  await pg.query(`create database ${DATABASE}`);
  bouncer = await startPgBouncer(pg.url);
  const directUrl = pg.urlOf(DATABASE);
  {
    const env = loadEnv({ DATABASE_URL: directUrl });
    const orm = await openDatabase(env);
    try {
      await migrateShop(env, orm);
      await createOrPromoteAdmin(orm, ADMIN);
    } finally {
      await orm.close(true);
    }
  }

  const webPorts = [await freePort(), await freePort()];
  haproxy = await startHaproxy(webPorts.map((port, i) => ({ name: `web${i + 1}`, port })));
  const stripePort = await freePort();
  const stripeUrl = `http://127.0.0.1:${stripePort}`;
  emulator = createStripeEmulator({
    publicUrl: stripeUrl,
    webhookUrl: `${haproxy.base}/api/stripe/webhook`,
    webhookSecret: WEBHOOK_SECRET,
    retry: { attempts: 20, delayMs: 500 },
    apiKey: STRIPE_KEY,
  });
  stripeServer = serve({ fetch: emulator.app.fetch, port: stripePort, hostname: '127.0.0.1' }) as Server;

  const env: Record<string, string> = {
    NODE_ENV: 'production',
    DATABASE_URL: bouncer.urlFor(DATABASE),
    DATABASE_DIRECT_URL: directUrl,
    REDIS_SENTINELS: redis.sentinelsVariable,
    REDIS_SENTINEL_NAME: redis.name,
    ...s3.env,
    SMTP_URL: smtp.url,
    STRIPE_SECRET_KEY: STRIPE_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_URL: stripeUrl,
    AUTH_SECRET: randomBytes(32).toString('hex'),
    APP_URL: haproxy.base,
    TRUST_PROXY_HEADER: 'x-forwarded-for',
    EXPORT_GROUP_NAME: '構成試験',
    SHUTDOWN_GRACE_SECONDS: '15',
    METRICS_TOKEN: 'scale-out-metrics-token-0123456789',
    LOG_LEVEL: process.env.FAULTS_LOG_LEVEL ?? 'info',
    SENTRY_DSN: '',
    ...QUICK_RECOVERY,
  };
  const logs = tempDir('logs');
  webs = webPorts.map(
    (port, i) =>
      new ShopProcess(
        `web${i + 1}`,
        'web',
        { ...env, PORT: String(port), DATA_DIR: tempDir(`web${i + 1}`) },
        join(logs, `web${i + 1}.log`),
      ),
  );
  worker = new ShopProcess('worker', 'worker', { ...env, DATA_DIR: tempDir('worker') }, join(logs, 'worker.log'));
  worker.ready = async () => {
    const counts = await onQueues((queue) => queue.getWorkersCount());
    return Object.values(counts).every((n) => n >= 1);
  };
  for (const web of webs) await web.start();
  await worker.start();
  for (const web of webs) await until(async () => (await haproxy.state(web.name)) === 'UP', 30_000, `${web.name} UP`);
}, 180_000);

afterAll(async () => {
  await Promise.all([...webs, worker].filter(Boolean).map((p) => p.stop()));
  emulator?.close();
  if (stripeServer) {
    stripeServer.closeAllConnections();
    await new Promise((done) => stripeServer.close(done));
  }
  await haproxy?.stop();
  await bouncer?.stop();
  await smtp?.close();
  await s3?.stop();
  await redis?.stop();
  await pg?.destroy();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

let ipSeq = 0;
/**
 * A cookie-keeping client, as the SPA, speaking to `base` (HAProxy unless a host is named) from a
 * loopback address of its own: HAProxy passes that address on, as it passes a browser's.
 */
function client(base = haproxy.base) {
  ipSeq++;
  const address = `127.1.${Math.floor(ipSeq / 250)}.${(ipSeq % 250) + 1}`;
  const request = fetchFrom(address);
  return new TestClient({ request: (path: string, init: RequestInit) => request(`${base}${path}`, init) }, address);
}

const filesUnder = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));

async function bucketKeys(prefix: string): Promise<string[]> {
  const s3client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: S3RVER_KEYS,
  });
  try {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await s3client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const item of page.Contents ?? []) if (item.Key) keys.push(item.Key);
      token = page.NextContinuationToken;
    } while (token);
    return keys;
  } finally {
    s3client.destroy();
  }
}

const sha256 = (bytes: ArrayBuffer) => createHash('sha256').update(Buffer.from(bytes)).digest('hex');

it('two web hosts and a worker on separate disks, behind HAProxy, through PgBouncer, S3 and Sentinel: a rolling restart and a Redis failover under load lose nothing and double nothing', async () => {
  const failures: string[] = [];
  const counts = { requests: 0, signIns: 0, registrations: 0, purchases: 0, uploads: 0, exports: 0 };
  let running = true;
  const t0 = Date.now();
  const at = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
  const call = async (what: string, request: () => Promise<Response>, expected = [200]) => {
    counts.requests++;
    try {
      const res = await request();
      if (!expected.includes(res.status)) {
        failures.push(`${at()} ${what}: ${res.status} ${(await res.text().catch(() => '')).slice(0, 120)}`);
        return undefined;
      }
      return res;
    } catch (error) {
      failures.push(`${at()} ${what}: ${String(error)}`);
      return undefined;
    }
  };

  const admin = client();
  expect((await admin.login(ADMIN.email, ADMIN.password)).status).toBe(200);

  // What must exist at the end.
  const registered: string[] = [];
  const sessions: { id: string; email: string }[] = [];
  const pictures: { url: string; thumbnail: string; sha256: string }[] = [];
  const licenses: number[] = [];
  const exportIds: string[] = [];

  /** An administrator adds a licence with one picture (a colour of its own) through HAProxy. */
  const upload = async () => {
    const n = counts.uploads + 1;
    const bytes = await png(320, 240, { r: (n * 37) % 256, g: (n * 91) % 256, b: (n * 53) % 256 });
    const data = new FormData();
    data.append('name', `構成試験ライセンス ${n}`);
    data.append('description', '二台のウェブと一台のワーカーで売っています。');
    data.append('price', String(1000 + n * 10));
    data.append('file[0]', new Blob([new Uint8Array(bytes)]), `picture-${n}.png`);
    const res = await call(
      'POST /api/licenses/create',
      () => admin.request('POST', '/api/licenses/create', { body: data }),
      [201],
    );
    if (!res) return;
    const { license } = (await res.json()) as { license: { id: number; pictures: { url: string; thumbnail_url: string }[] } };
    licenses.push(license.id);
    const [picture] = license.pictures;
    if (picture) {
      const stored = await fetch(`${haproxy.base}${picture.url}`);
      pictures.push({ url: picture.url, thumbnail: picture.thumbnail_url, sha256: sha256(await stored.arrayBuffer()) });
    }
    counts.uploads++;
  };
  // A catalogue to buy from before the load begins.
  for (let i = 0; i < 3; i++) await upload();
  expect(failures).toEqual([]);

  /** A member's whole journey: registration, the verification mail, sign-in, a card purchase. */
  const journey = async () => {
    const email = `scale-${counts.registrations + 1}-${randomBytes(3).toString('hex')}@example.jp`;
    const member = client();
    const res = await call('POST /api/users/registration', () =>
      member.post('/api/users/registration', {
        email,
        email_confirmation: email,
        last_name: '分散',
        first_name: '試験',
        affiliations: 5,
        affiliation_name: '〇〇病院',
        affiliation_other: '',
        distribution: true,
        password: PASSWORD,
        password_confirmation: PASSWORD,
      }),
    );
    if (!res) return;
    registered.push(email);
    counts.registrations++;
    const mail = await until(
      async () => smtp.to(email).find((m) => m.subject.includes(VERIFY_SUBJECT)),
      90_000,
      `the verification mail to ${email}`,
    );
    const path = /https?:\/\/[^/\s]+(\/api\/users\/registration\/verify\/[\w-]+)/.exec(mail.text)?.[1] as string;
    const verified = await call('GET verification link', () => member.get(path), [302]);
    if (verified?.headers.get('location') !== '/users/registration/email-verified') {
      failures.push(`verification of ${email}: ${verified?.headers.get('location')}`);
      return;
    }
    if (!(await call('POST /api/login (new member)', () => member.login(email, PASSWORD)))) return;
    const licenseId = licenses[Math.floor(Math.random() * licenses.length)] as number;
    const checkout = await call('POST /api/licenses/stripe', () =>
      member.post('/api/licenses/stripe', { licenseId, distribution: true }),
    );
    if (!checkout) return;
    const { url } = (await checkout.json()) as { url: string };
    const sessionId = new URL(url).pathname.split('/').pop() as string;
    sessions.push({ id: sessionId, email });
    await emulator.pay(sessionId, 'card');
    counts.purchases++;
  };

  /** Members who were signed in before the restarts, browsing the catalogue and its pictures. */
  const browse = async (member: TestClient) => {
    while (running) {
      await call('GET /api/licenses', () => member.get('/api/licenses'));
      const me = await call('GET /api/login', () => member.get('/api/login'));
      if (me && ((await me.json()) as { users: unknown[] }).users.length !== 1) failures.push('GET /api/login: signed out');
      const picture = pictures[Math.floor(Math.random() * pictures.length)];
      if (picture) {
        const res = await call(`GET ${picture.url}`, () => member.get(picture.url));
        if (res && sha256(await res.arrayBuffer()) !== picture.sha256) failures.push(`${picture.url}: other bytes`);
      }
      await sleep(20);
    }
  };
  /** Sign-ins from scratch, as a member opening the shop in a new browser. */
  const signIns = async (email: string) => {
    while (running) {
      const member = client();
      const before = failures.length;
      await call('GET /api/csrf-token', () => member.get('/api/csrf-token'), [200, 204]);
      await call('POST /api/login', () => member.login(email, PASSWORD));
      const me = await call('GET /api/login (after sign-in)', () => member.get('/api/login'));
      if (me && ((await me.json()) as { users: unknown[] }).users.length !== 1) failures.push('sign-in did not hold');
      if (failures.length === before) counts.signIns++;
      await sleep(30);
    }
  };
  const journeys = async () => {
    while (running) {
      await journey();
      await sleep(100);
    }
  };
  const uploads = async () => {
    while (running) {
      await upload();
      await sleep(1_500);
    }
  };
  const exporting = async () => {
    while (running) {
      const res = await call('POST /api/exports', () => admin.post('/api/exports', {}), [202]);
      if (res) {
        exportIds.push(((await res.json()) as { export: { id: string } }).export.id);
        counts.exports++;
      }
      await sleep(4_000);
    }
  };

  // Two members who exist before the load, one browsing and one signing in again and again.
  await journey();
  await journey();
  expect(failures).toEqual([]);
  const browsers = await Promise.all(
    registered.slice(0, 2).map(async (email) => {
      const member = client();
      expect((await member.login(email, PASSWORD)).status).toBe(200);
      return member;
    }),
  );
  const load = Promise.all([
    ...browsers.map(browse),
    signIns(registered[1] as string),
    journeys(),
    journeys(),
    uploads(),
    exporting(),
  ]);

  // The chaos, one event after the other while the load runs.
  const events: string[] = [];
  const mark = (what: string) => events.push(`${at()} ${what} (${counts.requests} requests so far)`);
  await sleep(3_000);
  for (const web of webs) {
    await web.stop();
    mark(`${web.name} stopped`);
    await web.start();
    await until(async () => (await haproxy.state(web.name)) === 'UP', 60_000, `${web.name} UP again`);
    mark(`${web.name} back`);
    await sleep(1_500);
  }
  const promoted = await redis.failover();
  mark(`Redis failed over to ${promoted}`);
  await sleep(3_000);
  await worker.stop();
  mark('worker stopped');
  await worker.start();
  mark('worker back');
  await sleep(3_000);
  running = false;
  await load;
  console.info(`scale-out: ${JSON.stringify(counts)}; ${events.join('; ')}`);

  expect(failures.slice(0, 20), `${failures.length} failed of ${counts.requests}`).toEqual([]);
  expect(counts.registrations).toBeGreaterThan(5);
  expect(counts.purchases).toBeGreaterThan(5);
  expect(counts.uploads).toBeGreaterThan(5);
  expect(counts.exports).toBeGreaterThan(2);
  expect(counts.signIns).toBeGreaterThan(20);

  // Every sale once.
  await until(
    async () => {
      const [row] = await sql<{ n: number }>('select count(*)::int as n from sales');
      return row?.n === sessions.length;
    },
    90_000,
    'a sale for every paid session',
  );
  const sales = await sql<{ session: string; n: number }>(
    'select stripe_session_id as session, count(*)::int as n from sales group by 1',
  );
  expect(sales.filter((s) => s.n !== 1)).toEqual([]);
  expect(sales.map((s) => s.session).sort()).toEqual(sessions.map((s) => s.id).sort());

  // Every e-mail once: one verification per registration, one receipt per purchase, nothing else.
  const wanted = [
    ...registered.map((to) => ({ to, subject: VERIFY_SUBJECT })),
    ...sessions.map((s) => ({ to: s.email, subject: RECEIPT_SUBJECT })),
  ];
  await until(
    async () => wanted.every((w) => smtp.to(w.to).some((m) => m.subject.includes(w.subject))),
    120_000,
    'every verification and receipt mail',
  );
  await sleep(2_000);
  for (const w of wanted) {
    const copies = smtp.to(w.to).filter((m) => m.subject.includes(w.subject));
    expect(new Set(copies.map((m) => m.messageId)).size, `${w.subject} to ${w.to}`).toBe(1);
  }
  const unexpected = smtp.received.filter(
    (m) =>
      !wanted.some((w) => w.to === m.to && m.subject.includes(w.subject)) &&
      !ACCOUNT_NOTICES.some((subject) => m.subject.includes(subject)),
  );
  expect(unexpected.map((m) => `${m.to}: ${m.subject}`)).toEqual([]);

  // Every export done, the same bytes from every host, each a file in the bucket.
  const exportsDone = await until(
    async () => {
      const rows = await Promise.all(
        exportIds.map(
          async (id) => ((await (await admin.get(`/api/exports/${id}`)).json()) as { export: Record<string, unknown> }).export,
        ),
      );
      const failed = rows.filter((r) => r.state === 'failed');
      if (failed.length) throw new Error(`exports failed: ${JSON.stringify(failed)}`);
      return rows.every((r) => r.state === 'done') && rows;
    },
    120_000,
    'every export done',
  );
  const hosts = [haproxy.base, ...webs.map((w) => w.url as string)];
  const adminOn = await Promise.all(
    hosts.map(async (base) => {
      const c = client(base);
      expect((await c.login(ADMIN.email, ADMIN.password)).status).toBe(200);
      return c;
    }),
  );
  for (const row of exportsDone) {
    for (const c of adminOn) {
      const res = await c.get(row.download_url as string);
      expect(res.status, `${row.download_url}`).toBe(200);
      expect(sha256(await res.arrayBuffer())).toBe(row.sha256);
    }
  }
  expect((await bucketKeys('exports/')).sort()).toEqual(exportIds.map((id) => `exports/${id}.csv`).sort());

  // Every picture reachable from every host, and in the bucket once with its thumbnail.
  for (const picture of pictures) {
    for (const base of hosts) {
      const res = await fetch(`${base}${picture.url}`);
      expect(res.status, `${base}${picture.url}`).toBe(200);
      expect(sha256(await res.arrayBuffer())).toBe(picture.sha256);
      expect((await fetch(`${base}${picture.thumbnail}`)).status).toBe(200);
    }
  }
  expect((await bucketKeys('uploads/')).length).toBe(pictures.length * 2);

  // Nothing left behind: no job waiting or failed, the outbox relayed, no file on any host's disk.
  await until(
    async () => {
      const jobs = await onQueues((queue) => queue.getJobCounts('active', 'waiting', 'delayed', 'prioritized', 'failed'));
      const delayed = await onQueues(async (queue) => (await queue.getDelayed(0, -1)).filter((job) => !job.repeatJobKey).length);
      const left = Object.entries(jobs).filter(
        ([name, c]) => (c.active ?? 0) + (c.waiting ?? 0) + (c.prioritized ?? 0) + (c.failed ?? 0) + (delayed[name] ?? 0) > 0,
      );
      if (left.length === 0) return true;
      // Said when it times out: which queue holds what, and why its failed jobs failed.
      const reasons = await onQueues(async (queue) =>
        (await queue.getFailed(0, 4)).map((job) => `${job.name}: ${job.failedReason}`),
      );
      throw new Error(JSON.stringify({ left: Object.fromEntries(left), delayed, reasons }));
    },
    // A job whose lock was lost with the old Redis primary waits for the stalled-job check (JOB_LOCK_SECONDS, 30 s) first.
    180_000,
    'every queue drained, no failed job',
  );
  const [outbox] = await sql<{ n: number }>('select count(*)::int as n from outbox_events where published_at is null');
  expect(outbox?.n).toBe(0);
  for (const process of [...webs, worker]) expect(filesUnder(process.env.DATA_DIR as string), process.name).toEqual([]);
}, 600_000);

it('a price change and a sign-out made on one web host are seen on the other within a second (through PgBouncer, after restarts)', async () => {
  const [web1, web2] = webs as [ShopProcess, ShopProcess];
  const admin = client(web1.url);
  expect((await admin.login(ADMIN.email, ADMIN.password)).status).toBe(200);
  const data = new FormData();
  data.append('name', '価格変更の試験');
  data.append('description', '');
  data.append('price', '2300');
  const created = await admin.request('POST', '/api/licenses/create', { body: data });
  expect(created.status).toBe(201);
  const { license } = (await created.json()) as { license: { id: number; updated_at: string } };

  // A member signed in on one host is served by the other from memory (the same cookie).
  const member = client(web1.url);
  const email = `scale-viewer-${randomBytes(3).toString('hex')}@example.jp`;
  expect(
    (
      await member.post('/api/users/registration', {
        email,
        email_confirmation: email,
        last_name: '価格',
        first_name: '確認',
        affiliations: 1,
        affiliation_name: '〇〇駐屯地',
        affiliation_other: '',
        distribution: false,
        password: PASSWORD,
        password_confirmation: PASSWORD,
      })
    ).status,
  ).toBe(200);
  const mail = await until(async () => smtp.to(email)[0], 30_000, 'the verification mail');
  const path = /https?:\/\/[^/\s]+(\/api\/users\/registration\/verify\/[\w-]+)/.exec(mail.text)?.[1] as string;
  expect((await member.get(path)).status).toBe(302);
  expect((await member.login(email, PASSWORD)).status).toBe(200);
  const onWeb2 = client(web2.url);
  for (const [name, value] of member.cookies) onWeb2.cookies.set(name, value);
  const priceOnWeb2 = async () =>
    ((await (await onWeb2.get(`/api/licenses/${license.id}`)).json()) as { license: { price: number } }).license.price;
  expect(await priceOnWeb2()).toBe(2300);
  expect(await priceOnWeb2()).toBe(2300);

  const edit = new FormData();
  edit.append('name', '価格変更の試験');
  edit.append('description', '');
  edit.append('price', '3300');
  edit.append('updated_at', license.updated_at);
  const edited = await admin.request('POST', `/api/licenses/${license.id}`, { body: edit });
  expect(edited.status, await edited.clone().text()).toBe(200);
  const changedAt = Date.now();
  await until(async () => (await priceOnWeb2()) === 3300, 1_000, 'the new price on the other host');
  expect(Date.now() - changedAt).toBeLessThanOrEqual(1_000);

  const signedIn = async () => ((await (await onWeb2.get('/api/login')).json()) as { users: unknown[] }).users.length;
  expect(await signedIn()).toBe(1);
  expect((await member.post('/api/logout')).status).toBeLessThan(300);
  const signedOutAt = Date.now();
  await until(async () => (await signedIn()) === 0, 1_000, 'the session gone on the other host');
  expect(Date.now() - signedOutAt).toBeLessThanOrEqual(1_000);
}, 120_000);

it('HAProxy as deploy/haproxy.cfg has it: HTTPS only, no /metrics from outside, its own figures apart, the Japanese maintenance page when no web host is up', async () => {
  const redirect = await fetch(`${haproxy.httpBase}/licenses?page=2`, { redirect: 'manual' });
  expect(redirect.status).toBe(301);
  const location = new URL(redirect.headers.get('location') as string);
  expect(`${location.protocol}${location.pathname}${location.search}`).toBe('https:/licenses?page=2');

  const token = webs[0]?.env.METRICS_TOKEN as string;
  expect((await fetch(`${webs[0]?.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  const throughProxy = await fetch(`${haproxy.base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  expect(throughProxy.status).toBe(404);
  expect(await throughProxy.text()).not.toContain('shop_');
  const exporter = await (await fetch(`${haproxy.statsBase}/metrics`)).text();
  expect(exporter).toMatch(/^haproxy_backend_status\{proxy="web",state="UP"\} 1$/m);

  const ok = await fetch(`${haproxy.base}/healthz`);
  expect(ok.status).toBe(200);
  expect(ok.headers.get('strict-transport-security')).toContain('max-age=');

  for (const web of webs) await web.stop();
  await until(
    async () => (await haproxy.state('web1')) === 'DOWN' && (await haproxy.state('web2')) === 'DOWN',
    20_000,
    'both web hosts DOWN',
  );
  const maintenance = await fetch(`${haproxy.base}/healthz`);
  expect(maintenance.status).toBe(503);
  expect(maintenance.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(await maintenance.text()).toContain('ただいまメンテナンス中です');
}, 60_000);
