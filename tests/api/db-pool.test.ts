import { Client, Pool } from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { guardPool } from '../../src/db/orm.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { recentWorkers } from '../../src/modules/health/index.ts';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { TEST_PG_URL } from '../support/env.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';
import { eventually } from '../support/wait.ts';

interface PgPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options: { max: number; connectionTimeoutMillis?: number; keepAlive?: boolean };
}

let smtp: TestSmtp;
let t: ShopWithStripe;
let pool: PgPool;
let licenseId: number;

beforeAll(async () => {
  smtp = await startSmtp();
  // The whole shop in one process (API, relay, workers) with the project's Stripe emulator.
  t = await startShopWithStripe({ smtpUrl: smtp.url });
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'admin@example.jp', password: 'admin-pass-123' });
  const license = await createLicense(
    t.runtime.deps.orm,
    t.runtime.deps.files,
    { id: 'test', email: 'test' },
    { name: 'ACLS 講習ライセンス', description: '', price: 11000 },
    [],
  );
  licenseId = license.id;
  pool = (await t.runtime.deps.orm.em.getConnection().getNativeClient()) as PgPool;
}, 60_000);
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

/** Ends server sessions of the app's database (all, or one pid), as a restart or an operator would. */
async function terminateAppBackends(pid?: number): Promise<number> {
  const admin = new Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query(
      'select pg_terminate_backend(pid) as ended from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and ($2::int is null or pid = $2)',
      [t.db.name, pid ?? null],
    );
    return rows.filter((r) => r.ended).length;
  } finally {
    await admin.end();
  }
}

/** `count` transactions that each hold a connection until `gate` opens, then query again. */
async function openTransactions(count: number) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let started = 0;
  const outcomes = Array.from({ length: count }, () =>
    t.runtime.deps.orm.em
      .fork()
      .transactional(async (em) => {
        await em.execute('select 1');
        started++;
        await gate;
        await em.execute('select 1');
      })
      .then(
        () => 'committed',
        () => 'failed',
      ),
  );
  await eventually(async () => started === count, 10_000, `${count} open transactions`);
  return { open, outcomes: Promise.all(outcomes) };
}

it('sets a connection timeout, keep-alive and the server-side idle-in-transaction limit', async () => {
  expect(pool.options.connectionTimeoutMillis).toBe(10_000);
  expect(pool.options.keepAlive).toBe(true);
  const rows = await t.runtime.deps.orm.em.fork().execute('show idle_in_transaction_session_timeout');
  expect(rows[0]?.idle_in_transaction_session_timeout).toBe('1min');
});

it('a pg client whose BEGIN, COMMIT or ROLLBACK fails on a dead connection leaves the pool at once', async () => {
  const own = new Pool({ connectionString: t.db.url, max: 2 });
  guardPool(own as never);
  try {
    for (const statement of ['rollback', 'commit', 'begin']) {
      const client = await own.connect();
      client.on('error', () => undefined); // the drop is reported here too (MikroORM logs it)
      const { rows } = await client.query('select pg_backend_pid() as pid');
      expect(await terminateAppBackends(rows[0].pid)).toBe(1);
      await expect(client.query(statement)).rejects.toThrow();
      expect(own.totalCount).toBe(0);
      // Kysely's own release afterwards (if any) changes nothing.
      client.release();
      expect(own.totalCount).toBe(0);
    }
    // `rollback to` a savepoint is not the end of a transaction: a failure there keeps the client.
    const client = await own.connect();
    await expect(client.query('rollback to savepoint nowhere')).rejects.toThrow();
    expect(own.totalCount).toBe(1);
    client.release();
  } finally {
    await own.end();
  }
});

it('destroys connections that died inside open transactions, twice, and works again at once without a restart', async () => {
  for (let round = 1; round <= 2; round++) {
    // Every connection of the pool is inside a transaction when the server ends the sessions.
    const held = await openTransactions(pool.options.max);
    expect(pool.totalCount).toBe(pool.options.max);
    expect(await terminateAppBackends()).toBeGreaterThanOrEqual(pool.options.max);
    held.open();
    // The next query and the ROLLBACK fail on the dead connection; the clients must not stay checked out.
    expect(await held.outcomes).toEqual(Array(pool.options.max).fill('failed'));
    await eventually(async () => pool.totalCount - pool.idleCount < pool.options.max, 15_000, `round ${round}: pool freed`);
  }
  expect(pool.waitingCount).toBe(0);

  // As many transactions as the pool holds run again, well within the pool's connection timeout.
  const started = Date.now();
  const again = await openTransactions(pool.options.max);
  again.open();
  expect(await again.outcomes).toEqual(Array(pool.options.max).fill('committed'));
  expect(Date.now() - started).toBeLessThan(9_000);

  // Requests flow: readiness, and a sign-in (session written to the database).
  const ready = await t.app.request('/readyz');
  expect(ready.status).toBe(200);
  const body = await ready.json();
  expect(body.checks).toEqual({ database: 'ok', redis: 'ok' });
  expect(body.pool.waiting).toBe(0);
  expect((await new TestClient(t.app).login('admin@example.jp', 'admin-pass-123')).status).toBe(200);

  // Jobs flow: a new member's verification e-mail goes out through the relay and the mail worker.
  const email = `pool-${Date.now()}@example.jp`;
  await aMember(t.runtime.deps.orm, {
    email,
    password: 'member-pass-123',
    lastName: '高橋',
    firstName: '三郎',
    emailVerified: false,
  });
  const mail = await smtp.waitFor(smtp.to(email), 20_000);
  expect(mail.subject).toContain('メールアドレスの確認');

  // The worker's heartbeat says it reaches the database again.
  await eventually(
    async () => (await recentWorkers(t.runtime.deps.redis, t.prefix)).some((w) => w.database === 'ok'),
    15_000,
    'a worker heartbeat with the database ok',
  );
}, 60_000);

it('a job running while its connection is terminated succeeds on retry, and the pool keeps no dead client', async () => {
  // Terminate while the relay and the worker are busy with a batch of e-mails.
  const emails = Array.from({ length: 8 }, (_, i) => `burst-${i}-${Date.now()}@example.jp`);
  for (const email of emails) {
    await aMember(t.runtime.deps.orm, {
      email,
      password: 'member-pass-123',
      lastName: '佐藤',
      firstName: '花子',
      emailVerified: false,
    });
  }
  await terminateAppBackends();
  await terminateAppBackends();
  for (const email of emails) await smtp.waitFor(smtp.to(email), 30_000);
  await eventually(async () => pool.waitingCount === 0 && pool.totalCount <= pool.options.max, 15_000, 'pool settled');
  // On a loaded machine the check's 3 s budget may run out once; a dead pooled client would fail it
  // with the driver's error instead, which no retry may hide.
  const notReady: string[] = [];
  await eventually(
    async () => {
      const ready = await t.app.request('/readyz');
      if (ready.status !== 200) notReady.push((await ready.json()).checks?.database);
      return ready.status === 200;
    },
    15_000,
    'readiness',
  );
  for (const reason of notReady) expect(reason).toMatch(/^no answer within/);
}, 60_000);

it('payments paid while the backends are terminated twice still become one sale each, with a receipt', async () => {
  const buyers: { client: TestClient; email: string; sessionId: string }[] = [];
  for (let i = 0; i < 4; i++) {
    const email = `pool-buyer${i}-${Date.now()}@example.jp`;
    await aMember(t.runtime.deps.orm, {
      email,
      password: 'buyer-pass-123',
      lastName: '購入',
      firstName: `太郎${i}`,
      emailVerified: true,
      affiliation: 4,
      affiliationName: '〇〇消防',
    });
    const client = new TestClient(t.app, `10.30.0.${i + 1}`);
    expect((await client.login(email, 'buyer-pass-123')).status).toBe(200);
    const res = await client.post('/api/licenses/stripe', { licenseId, distribution: true });
    expect(res.status, await res.clone().text()).toBe(200);
    const sessionId = new URL((await res.json()).url).pathname.split('/').pop() as string;
    buyers.push({ client, email, sessionId });
  }
  for (const buyer of buyers) t.emulator.pay(buyer.sessionId, 'card');
  await terminateAppBackends();
  await terminateAppBackends();
  for (const buyer of buyers) {
    await eventually(
      async () => {
        const rows = await t.runtime.deps.orm.em
          .fork()
          .execute('select count(*)::int as n from sales where stripe_session_id = ?', [buyer.sessionId]);
        return rows[0]?.n === 1;
      },
      45_000,
      `the sale of ${buyer.sessionId}`,
    );
    const receipt = await smtp.waitFor(smtp.to(buyer.email), 30_000);
    expect(receipt.subject).toBe('【ライセンスストア】ご購入ありがとうございます');
  }
  await eventually(async () => pool.waitingCount === 0, 15_000, 'pool settled');
}, 90_000);
