import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANGE_CHANNEL } from '../../src/db/changes.ts';
import { createStripeEmulator } from '../../src/dev/stripe-emulator/emulator.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { TEST_PG_URL } from '../support/env.ts';
import { aLicense, aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startPgBouncer } from '../support/pgbouncer.ts';
import { freePort } from '../support/ports.ts';
import { createDatabase, startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { TEST_STRIPE_KEY, TEST_WEBHOOK_SECRET } from '../support/stripe.ts';
import { eventually } from '../support/wait.ts';

// Two web processes of one shop whose DATABASE_URL is PgBouncer in transaction mode with its default
// settings, and a third without DATABASE_DIRECT_URL (its change feed can only listen through the pooler).
let bouncer: Awaited<ReturnType<typeof startPgBouncer>>;
let db: Awaited<ReturnType<typeof createDatabase>>;
let a: TestRuntime;
let b: TestRuntime;
let c: TestRuntime;
let elsewhere: pg.Client;
let licenseId: number;
let dataDir: string;
let stopStripe: (() => Promise<void>) | undefined;

const feedOf = (t: TestRuntime) => {
  const feed = t.runtime.deps.changes;
  if (!feed) throw new Error('no change feed');
  return feed;
};

/** `client`'s cookies, presented to another process's app. */
function sameBrowser(client: TestClient, t: TestRuntime, ip: string) {
  const other = new TestClient(t.app, ip);
  for (const [name, value] of client.cookies) other.cookies.set(name, value);
  return other;
}

async function priceOn(client: TestClient): Promise<number | undefined> {
  const res = await client.get('/api/licenses?per_page=100');
  const { licenses } = (await res.json()) as { licenses: { id: number; price: number }[] };
  return licenses.find((l) => l.id === licenseId)?.price;
}

beforeAll(async () => {
  bouncer = await startPgBouncer(TEST_PG_URL);
  db = await createDatabase();
  const shared = {
    db,
    env: { dataDir: mkdtempSync(join(tmpdir(), 'shop-pgbouncer-data-')), authSecret: randomBytes(32).toString('hex') },
    prefix: `t${randomBytes(4).toString('hex')}`,
  };
  const pooled = bouncer.urlFor(db.name);
  // Stripe: the project's emulator on a port of its own (its webhooks go nowhere; only the price matters here).
  const stripePort = await freePort();
  const emulator = createStripeEmulator({
    publicUrl: `http://127.0.0.1:${stripePort}`,
    webhookUrl: `http://127.0.0.1:${await freePort()}/api/stripe/webhook`,
    webhookSecret: TEST_WEBHOOK_SECRET,
    retry: { attempts: 1, delayMs: 100 },
    apiKey: TEST_STRIPE_KEY,
  });
  const stripeServer = serve({ fetch: emulator.app.fetch, port: stripePort, hostname: '127.0.0.1' });
  stopStripe = async () => {
    emulator.close();
    await new Promise<void>((done) => stripeServer.close(() => done()));
  };
  const stripe = {
    STRIPE_SECRET_KEY: TEST_STRIPE_KEY,
    STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    STRIPE_API_URL: `http://127.0.0.1:${stripePort}`,
  };
  a = await startTestRuntime({ env: { ...stripe, DATABASE_URL: pooled, DATABASE_DIRECT_URL: db.url }, shareWith: shared });
  b = await startTestRuntime({ env: { ...stripe, DATABASE_URL: pooled, DATABASE_DIRECT_URL: db.url }, shareWith: shared });
  c = await startTestRuntime({ env: { ...stripe, DATABASE_URL: pooled }, shareWith: shared });
  dataDir = shared.env.dataDir;
  elsewhere = new pg.Client({ connectionString: bouncer.urlFor(db.name) });
  await elsewhere.connect();
  licenseId = await aLicense(a.runtime.deps.orm, { name: 'プール越しの講習', price: 2300 });
  await createOrPromoteAdmin(a.runtime.deps.orm, { email: 'pool-admin@example.jp', password: 'pool-admin-pass-123' });
  await aMember(a.runtime.deps.orm, {
    email: 'pool-member@example.jp',
    password: 'pool-member-pass-123',
    lastName: '田中',
    firstName: '一郎',
    emailVerified: true,
    affiliation: 4,
    affiliationName: '〇〇消防署',
  });
}, 120_000);
afterAll(async () => {
  await elsewhere?.end();
  await c?.stop();
  await b?.stop();
  await a?.stop();
  await db?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  await bouncer?.stop();
  await stopStripe?.();
});

describe('PostgreSQL through PgBouncer in transaction mode', () => {
  it('starts with no startup parameter, and sessions still end when idle in a transaction (role setting)', async () => {
    expect(a.env.databaseUrl).toContain(`:${bouncer.port}/`);
    const rows = await a.runtime.deps.orm.em.fork().execute('show idle_in_transaction_session_timeout');
    expect(rows[0]?.idle_in_transaction_session_timeout).toBe('1min');
    // Every server connection the pooler opens gets it, not only the one a SET happened to land on.
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        a.runtime.deps.orm.em.fork().transactional(async (tx) => {
          const [row] = await tx.execute('select current_setting(?) as value, pg_backend_pid() as pid', [
            'idle_in_transaction_session_timeout',
          ]);
          await tx.execute('select pg_sleep(0.05)');
          return row as { value: string; pid: number };
        }),
      ),
    );
    expect(new Set(results.map((r) => r.pid)).size).toBeGreaterThan(1);
    expect(results.every((r) => r.value === '1min')).toBe(true);
  });

  it('trusts caches only while the feed is proven on a direct connection', async () => {
    await eventually(async () => feedOf(a).live && feedOf(b).live, 10_000, 'feeds on the direct connection live');
    // Every host's beats reach the server: a direct listener hears each host beat twice, c's too. c,
    // listening through the pooler, would have heard its first beat by then; it heard none.
    const listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    const beats = new Map<string, number>();
    listener.on('notification', ({ payload }) => {
      const [table, sender] = (payload ?? '').split(':');
      if (table === 'beat' && sender) beats.set(sender, (beats.get(sender) ?? 0) + 1);
    });
    try {
      await listener.query(`listen ${CHANGE_CHANNEL}`);
      await eventually(
        async () => beats.size === 3 && [...beats.values()].every((n) => n >= 2),
        10_000,
        'two beats of each host',
      );
    } finally {
      await listener.end();
    }
    expect(feedOf(c).live).toBe(false);
    expect(feedOf(a).live && feedOf(b).live).toBe(true);
  });

  it('a price changed on one host is shown by every host within a second, and charged as stored', async () => {
    const viewers = [a, b, c].map((t, i) => new TestClient(t.app, `10.88.0.${i + 1}`));
    for (const viewer of viewers) await viewer.login('pool-member@example.jp', 'pool-member-pass-123');
    for (const viewer of viewers) {
      expect(await priceOn(viewer)).toBe(2300);
      expect(await priceOn(viewer)).toBe(2300); // a and b now answer from memory
    }
    await elsewhere.query('update licenses set price = 3300, updated_at = now() where id = $1', [licenseId]);
    const changedAt = Date.now();
    await Promise.all(
      viewers.map((viewer) => eventually(async () => (await priceOn(viewer)) === 3300, 1_000, 'the new price everywhere')),
    );
    expect(Date.now() - changedAt).toBeLessThanOrEqual(1_000);
    // The checkout records the price read inside its own transaction.
    const buy = await viewers[1]?.post('/api/licenses/stripe', { licenseId, distribution: true });
    expect(buy?.status).toBe(200);
    const [checkout] = await a.runtime.deps.orm.em
      .fork()
      .execute('select amount from checkout_sessions where license_id = ? order by created_at desc limit 1', [licenseId]);
    expect(checkout?.amount).toBe(3300);
  });

  it('a sign-out on one host ends the session on every host within a second', async () => {
    const browser = new TestClient(a.app, '10.88.1.1');
    expect((await browser.login('pool-admin@example.jp', 'pool-admin-pass-123')).status).toBe(200);
    const onB = sameBrowser(browser, b, '10.88.1.1');
    const onC = sameBrowser(browser, c, '10.88.1.1');
    for (const client of [onB, onC]) {
      expect(((await (await client.get('/api/login')).json()) as { users: unknown[] }).users).toHaveLength(1);
      expect(((await (await client.get('/api/login')).json()) as { users: unknown[] }).users).toHaveLength(1);
    }
    expect((await browser.post('/api/logout')).status).toBeLessThan(300);
    const signedOutAt = Date.now();
    for (const client of [onB, onC]) {
      await eventually(
        async () => ((await (await client.get('/api/login')).json()) as { users: unknown[] }).users.length === 0,
        1_000,
        'the session gone on the other host',
      );
    }
    expect(Date.now() - signedOutAt).toBeLessThanOrEqual(1_000);
    expect((await onB.get('/api/users')).status).toBe(401);
  });

  it('a process restarts through the pooler without waiting on a leaked migration lock', async () => {
    const again = await startTestRuntime({
      env: { DATABASE_URL: bouncer.urlFor(db.name), DATABASE_DIRECT_URL: db.url },
      shareWith: { db, env: { dataDir, authSecret: a.env.authSecret }, prefix: a.prefix },
    });
    await again.runtime.stop();
    // This database's locks only: other test files on the shared server take their own.
    const locks = await elsewhere.query(
      `select count(*)::int as n from pg_locks where locktype = 'advisory' and granted
         and database = (select oid from pg_database where datname = current_database())`,
    );
    expect(locks.rows[0]?.n).toBe(0);
  }, 60_000);
});
