import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app.ts';
import { shopFigureSources } from '../../src/host/shop-figures.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { forgetShopFigures, shopFiguresFrom } from '../../src/lib/metrics.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { aLicense, aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { freePort } from '../support/ports.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';
import { eventually } from '../support/wait.ts';

const TOKEN = 'metrics-token-for-the-test-0123';
let smtp: TestSmtp;
/** With the Stripe emulator: reconciliation compares its payments with the sales. */
let t: ShopWithStripe;
let workerPort: number;
/** Every log line the runtime wrote, parsed. */
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  smtp = await startSmtp();
  workerPort = await freePort();
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  t = await startShopWithStripe({
    // No SPA: these tests read the API and the metrics pages only (no web build needed).
    webRoot: undefined,
    smtpUrl: smtp.url,
    env: { METRICS_TOKEN: TOKEN, WORKER_METRICS_PORT: String(workerPort), INSTANCE_ID: 'metrics-test-1' },
    log: createLogger('info', { instance: 'metrics-test-1', mode: 'all' }, sink),
  });
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'metrics-admin@example.jp', password: 'metrics-admin-pass-123' });
}, 60_000);
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

const scrape = async (headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) => {
  forgetShopFigures();
  return t.app.request('/metrics', { headers });
};
const metrics = async () => {
  const res = await scrape();
  expect(res.status).toBe(200);
  return res.text();
};
/** The value of one sample, e.g. `shop_mail_deliveries{state="failed"}`. */
const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('GET /metrics', () => {
  it('answers only Bearer $METRICS_TOKEN; without a token configured the page does not exist', async () => {
    const refused: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token-wrong-token-00' },
      { authorization: TOKEN },
    ];
    for (const headers of refused) {
      const res = await scrape(headers);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/json');
    }
    const ok = await scrape();
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toContain('text/plain');

    const unconfigured = createApp({ ...t.runtime.deps, env: { ...t.runtime.deps.env, metricsToken: undefined } });
    const res = await unconfigured.request('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('<html');
  });

  it('has the process metrics, the HTTP histogram by route pattern, and every shop-wide gauge', async () => {
    const client = new TestClient(t.app, '10.61.0.1');
    await client.login('metrics-admin@example.jp', 'metrics-admin-pass-123');
    expect((await client.get('/api/licenses/987654')).status).toBe(404);
    const text = await metrics();
    for (const family of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_gc_duration_seconds',
      'nodejs_active_handles_total',
      'shop_http_request_duration_seconds',
      'shop_queue_jobs',
      'shop_outbox_backlog',
      'shop_outbox_oldest_unpublished_age_seconds',
      'shop_payments_inbox_events',
      'shop_payments_flagged',
      'shop_mail_deliveries',
      'shop_exports',
      'shop_sweeper_last_run_timestamp_seconds',
      'shop_sweeper_last_run_redriven_jobs',
      'shop_workers_fresh',
      'shop_jobs_completed_total',
      'shop_jobs_failed_total',
      'shop_job_duration_seconds',
    ]) {
      expect(text, family).toContain(`# TYPE ${family} `);
    }
    expect(text).toContain(
      'shop_http_request_duration_seconds_count{method="GET",route="/api/licenses/:id{[0-9]+}",status="404"} 1',
    );
    expect(text).not.toContain('987654');
    expect(sample(text, 'shop_queue_jobs{queue="mail",state="waiting"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'shop_workers_fresh')).toBe(1);
  });

  it('the outbox gauges move while the relay is stopped, and fall back once it runs', async () => {
    await t.runtime.relay.stop();
    try {
      await aMember(t.runtime.deps.orm, {
        email: `backlog-${Date.now()}@example.jp`,
        password: 'member-pass-123',
        lastName: '待',
        firstName: '機',
        emailVerified: false,
      });
      // The event's age grows until it is published: read again until it is a second old.
      await vi.waitFor(
        async () => {
          const text = await metrics();
          expect(sample(text, 'shop_outbox_backlog')).toBe(1);
          expect(sample(text, 'shop_outbox_oldest_unpublished_age_seconds')).toBeGreaterThanOrEqual(1);
        },
        { timeout: 10_000, interval: 200 },
      );
    } finally {
      t.runtime.relay.start();
    }
    await eventually(async () => sample(await metrics(), 'shop_outbox_backlog') === 0, 10_000, 'the backlog published');
    expect(sample(await metrics(), 'shop_outbox_oldest_unpublished_age_seconds')).toBe(0);
  });

  it('a mail refused for good counts as failed, with its job given up', async () => {
    const before = await metrics();
    const failedBefore = sample(before, 'shop_mail_deliveries{state="failed"}') ?? 0;
    const givenUpBefore = sample(before, 'shop_jobs_failed_total{queue="mail",final="true"}') ?? 0;
    const email = `refused-${Date.now()}@example.jp`;
    smtp.refuse(email);
    await aMember(t.runtime.deps.orm, {
      email,
      password: 'member-pass-123',
      lastName: '不',
      firstName: '達',
      emailVerified: false,
    });
    await eventually(
      async () => (sample(await metrics(), 'shop_mail_deliveries{state="failed"}') ?? 0) === failedBefore + 1,
      20_000,
      'the failed mail counted',
    );
    const text = await metrics();
    expect(sample(text, 'shop_jobs_failed_total{queue="mail",final="true"}')).toBe(givenUpBefore + 1);
    const givenUp = lines.find((l) => l.msg === 'job given up' && l.queue === 'mail');
    expect(givenUp?.level).toBe('error');
  });

  it('an export waiting for a worker shows in the exports and queue gauges, then counts as completed', async () => {
    const exportsWorker = t.runtime.workers?.workers.find((w) => w.name === 'exports');
    await exportsWorker?.pause();
    const admin = new TestClient(t.app, '10.61.0.2');
    await admin.login('metrics-admin@example.jp', 'metrics-admin-pass-123');
    const completedBefore = sample(await metrics(), 'shop_jobs_completed_total{queue="exports"}') ?? 0;
    let exportId = '';
    try {
      const requested = await admin.post('/api/exports', {});
      expect(requested.status).toBe(202);
      exportId = (await requested.json()).export.id;
      await eventually(
        async () => {
          const text = await metrics();
          return (
            sample(text, 'shop_exports{state="queued"}') === 1 &&
            sample(text, 'shop_queue_jobs{queue="exports",state="waiting"}') === 1
          );
        },
        10_000,
        'the export queued and its job waiting',
      );
    } finally {
      exportsWorker?.resume();
    }
    await eventually(
      async () => {
        const text = await metrics();
        return (
          sample(text, 'shop_exports{state="queued"}') === 0 &&
          sample(text, 'shop_exports{state="running"}') === 0 &&
          sample(text, 'shop_jobs_completed_total{queue="exports"}') === completedBefore + 1
        );
      },
      20_000,
      'the export built',
    );
    expect(await metrics()).toMatch(/shop_job_duration_seconds_count\{queue="exports",outcome="done"\} [1-9]/);
    // Which process built it: in the log and on the export.
    expect(lines.find((l) => l.msg === 'export started' && l.export === exportId)).toMatchObject({
      level: 'info',
      instance: 'metrics-test-1',
    });
    const built = await (await admin.get(`/api/exports/${exportId}`)).json();
    expect(built.export.worker_instance).toBe('metrics-test-1');
    // While one runs, 運用状況 names the process building it.
    const em = t.runtime.deps.orm.em.fork();
    await em.execute(`update exports set state = 'running', heartbeat_at = now() where id = ?`, [exportId]);
    try {
      const ops = await (await admin.get('/api/operations')).json();
      expect(ops.operations.exports).toMatchObject({ running: 1, running_on: ['metrics-test-1'] });
    } finally {
      await em.execute(`update exports set state = 'done' where id = ?`, [exportId]);
    }
  });

  it('an export left running by a process that died is resumed, and the log names both processes', async () => {
    const exportsWorker = t.runtime.workers?.workers.find((w) => w.name === 'exports');
    await exportsWorker?.pause();
    const admin = new TestClient(t.app, '10.61.0.3');
    await admin.login('metrics-admin@example.jp', 'metrics-admin-pass-123');
    const em = t.runtime.deps.orm.em.fork();
    let exportId = '';
    try {
      const requested = await admin.post('/api/exports', {});
      expect(requested.status).toBe(202);
      exportId = (await requested.json()).export.id;
      // As a worker killed mid-build leaves it: running, named, its job handed back to the queue.
      await em.execute(`update exports set state = 'running', worker_instance = 'gone-worker' where id = ?`, [exportId]);
    } finally {
      exportsWorker?.resume();
    }
    await eventually(
      async () => (await (await admin.get(`/api/exports/${exportId}`)).json()).export.state === 'done',
      20_000,
      'the export resumed and built',
    );
    expect(lines.find((l) => l.msg === 'export resumed after a stalled attempt' && l.export === exportId)).toMatchObject({
      level: 'warn',
      instance: 'metrics-test-1',
      previousInstance: 'gone-worker',
    });
    expect(lines.some((l) => l.msg === 'export started' && l.export === exportId)).toBe(false);
  });

  it('the worker serves its own metrics on WORKER_METRICS_PORT, with the same token rule', async () => {
    const url = `http://127.0.0.1:${workerPort}/metrics`;
    expect((await fetch(url)).status).toBe(404);
    expect((await fetch(url, { headers: { authorization: 'Bearer nope-nope-nope-nope' } })).status).toBe(404);
    const res = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('# TYPE shop_jobs_completed_total counter');
    expect(text).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect((await fetch(`http://127.0.0.1:${workerPort}/other`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
      404,
    );
  });
});

describe('shop_payments_flagged', () => {
  const open = async () => sample(await metrics(), 'shop_payments_flagged{state="open"}');
  async function reconcileNow(admin: TestClient) {
    const res = await admin.post('/api/payments/reconciliations', { days: 1 });
    expect(res.status, await res.clone().text()).toBe(202);
    const id = (await res.json()).reconciliation.id as string;
    await eventually(
      async () => (await (await admin.get(`/api/payments/reconciliations/${id}`)).json()).reconciliation.state === 'done',
      20_000,
      'the reconciliation run',
    );
    return id;
  }

  it('a payment reconciliation found without a sale counts once until an administrator marks it 確認済み', async () => {
    const { orm } = t.runtime.deps;
    const admin = new TestClient(t.app, '10.61.0.8');
    await admin.login('metrics-admin@example.jp', 'metrics-admin-pass-123');
    expect(await open()).toBe(0);
    // Paid at Stripe, its webhook lost: money taken, no sale.
    const buyer = await aMember(orm, { email: `flagged-${Date.now()}@example.jp`, lastName: '照合', firstName: '花子' });
    const member = new TestClient(t.app, '10.61.0.9');
    expect((await member.login(buyer.email, buyer.password)).status).toBe(200);
    const started = await member.post('/api/licenses/stripe', { licenseId: await aLicense(orm), distribution: true });
    expect(started.status, await started.clone().text()).toBe(200);
    const sessionId = new URL((await started.json()).url).pathname.split('/').pop() as string;
    t.emulator.hold();
    t.emulator.pay(sessionId);
    await t.emulator.release([]);

    const first = await reconcileNow(admin);
    expect(await open()).toBe(1);
    // 運用状況 shows the figure the alert reads.
    expect((await (await admin.get('/api/operations')).json()).operations.payments_flagged).toEqual({ open: 1 });
    // The next run finds it again while the first is still on the admin menu: still one payment.
    const second = await reconcileNow(admin);
    expect(await open()).toBe(1);
    // The first run marked 確認済み as a whole: the second still lists the payment.
    expect((await admin.post(`/api/payments/reconciliations/${first}/acknowledge`, {})).status).toBe(200);
    expect(await open()).toBe(1);
    const { findings } = await (await admin.get(`/api/payments/reconciliations/${second}`)).json();
    const finding = findings.find((f: { stripe_session_id: string }) => f.stripe_session_id === sessionId);
    expect(finding).toMatchObject({ kind: 'paid_without_sale', acknowledged_at: null });
    const ack = await admin.post(`/api/payments/findings/${finding.id}/acknowledge`, { note: 'Stripe で返金しました' });
    expect(ack.status, await ack.clone().text()).toBe(200);
    expect((await ack.json()).run_acknowledged).toBe(true);
    expect(await open()).toBe(0);
    expect((await (await admin.get('/api/payments/reconciliations?unacknowledged=true')).json()).total).toBe(0);
  });

  it('is absent, never 0, while PostgreSQL cannot be read, as every figure read from it', async () => {
    const { orm, redis, queues } = t.runtime.deps;
    shopFiguresFrom({
      ...shopFigureSources(orm, redis, queues),
      postgres: () => Promise.reject(new Error('connection refused')),
    });
    try {
      const text = await metrics();
      expect(sample(text, 'shop_metrics_source_up{source="postgres"}')).toBe(0);
      expect(sample(text, 'shop_metrics_source_up{source="redis"}')).toBe(1);
      for (const family of ['shop_payments_flagged', 'shop_payments_inbox_events', 'shop_mail_deliveries', 'shop_exports']) {
        expect(text, family).not.toMatch(new RegExp(`^${family}\\{`, 'm'));
      }
      expect(sample(text, 'shop_outbox_backlog')).toBeUndefined();
      expect(sample(text, 'shop_workers_fresh')).toBe(1);
    } finally {
      shopFiguresFrom(shopFigureSources(orm, redis, queues));
    }
    expect(await open()).toBe(0);
  });
});

describe('GET /api/operations', () => {
  it('gives administrators the figures the gauges give; members 403, strangers 401', async () => {
    const admin = new TestClient(t.app, '10.61.0.5');
    await admin.login('metrics-admin@example.jp', 'metrics-admin-pass-123');
    // Both read at once while nothing else happens (notices of the sign-in above may still be relayed).
    await eventually(
      async () => {
        const text = await metrics();
        const res = await admin.get('/api/operations');
        expect(res.status).toBe(200);
        const { operations } = (await res.json()) as { operations: Record<string, Record<string, number>> };
        return (
          operations.mail?.failed === sample(text, 'shop_mail_deliveries{state="failed"}') &&
          operations.outbox?.backlog === sample(text, 'shop_outbox_backlog') &&
          operations.payments_inbox?.failed === sample(text, 'shop_payments_inbox_events{state="failed"}') &&
          operations.payments_flagged?.open === sample(text, 'shop_payments_flagged{state="open"}') &&
          operations.workers?.fresh === 1
        );
      },
      10_000,
      'the operations view and the gauges agreeing',
    );
    expect((await new TestClient(t.app, '10.61.0.6').get('/api/operations')).status).toBe(401);
    await aMember(t.runtime.deps.orm, {
      email: 'ops-member@example.jp',
      password: 'member-pass-123',
      lastName: '会',
      firstName: '員',
      emailVerified: true,
    });
    const member = new TestClient(t.app, '10.61.0.7');
    await member.login('ops-member@example.jp', 'member-pass-123');
    expect((await member.get('/api/operations')).status).toBe(403);
  });
});

describe('one request id from the request to the job', () => {
  it('echoes a safe X-Request-Id, replaces an unsafe one, and follows it into the worker’s log line for the mail', async () => {
    const id = `reg-${Date.now()}-abcdef`;
    const email = `traced-${Date.now()}@example.jp`;
    const client = new TestClient(t.app, '10.61.0.3');
    const res = await client.request('POST', '/api/users/registration', {
      headers: { 'x-request-id': id },
      json: {
        email,
        email_confirmation: email,
        last_name: '追跡',
        first_name: '太郎',
        affiliations: 2,
        affiliation_name: '〇〇警察署',
        affiliation_other: '',
        distribution: true,
        password: 'kumo-umi-sora-42',
        password_confirmation: 'kumo-umi-sora-42',
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(id);
    const [event] = await t.runtime.deps.orm.em
      .fork()
      .execute<{ request_id: string }[]>(
        "select request_id from outbox_events where name = 'UserRegistered' order by occurred_at desc limit 1",
      );
    expect(event?.request_id).toBe(id);
    await smtp.waitFor(smtp.to(email));
    const request = lines.find((l) => l.msg === 'request' && l.requestId === id && l.path === '/api/users/registration');
    expect(request).toMatchObject({ instance: 'metrics-test-1', mode: 'all', status: 200 });
    await eventually(
      async () => lines.some((l) => l.msg === 'job finished' && l.queue === 'mail' && l.requestId === id),
      10_000,
      'the mail job’s log line with the request id',
    );

    for (const unsafe of ['x', 'has space in it', '<script>alert(1)</script>', 'a'.repeat(65)]) {
      const answered = await t.app.request('/healthz', { headers: { 'x-request-id': unsafe } });
      const given = answered.headers.get('x-request-id');
      expect(given).not.toBe(unsafe);
      expect(given).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('request lines name the signed-in member by id, never by address', async () => {
    const client = new TestClient(t.app, '10.61.0.4');
    await client.login('metrics-admin@example.jp', 'metrics-admin-pass-123');
    const res = await client.request('GET', '/api/login', { headers: { 'x-request-id': 'whoami-request-0001' } });
    const me = ((await res.json()) as { users: { id: string }[] }).users[0];
    const line = lines.find((l) => l.msg === 'request' && l.requestId === 'whoami-request-0001');
    expect(line?.userId).toBe(me?.id);
    expect(JSON.stringify(line)).not.toContain('metrics-admin@example.jp');
  });
});

describe('probes in the log', () => {
  it('logs /healthz, /readyz and /metrics at debug (not at info), any other request at info', async () => {
    const ids = ['probe-healthz-0001', 'probe-readyz-00001', 'probe-metrics-0001', 'probe-other-000001'];
    await t.app.request('/healthz', { headers: { 'x-request-id': ids[0] as string } });
    await t.app.request('/readyz', { headers: { 'x-request-id': ids[1] as string } });
    await t.app.request('/metrics', { headers: { 'x-request-id': ids[2] as string, authorization: `Bearer ${TOKEN}` } });
    await t.app.request('/api/licenses', { headers: { 'x-request-id': ids[3] as string } });
    const logged = (id: string) => lines.some((l) => l.msg === 'request' && l.requestId === id);
    expect(ids.map(logged)).toEqual([false, false, false, true]);

    const debugLines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line.trim()) debugLines.push(JSON.parse(line));
        done();
      },
    });
    const app = createApp({ ...t.runtime.deps, log: createLogger('debug', {}, sink) });
    await app.request('/readyz');
    expect(debugLines.find((l) => l.msg === 'request' && l.path === '/readyz')).toMatchObject({ level: 'debug', status: 200 });
  });
});
