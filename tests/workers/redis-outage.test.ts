import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger.ts';
import { forgetShopFigures } from '../../src/lib/metrics.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { freePort } from '../support/ports.ts';
import { startPrivateRedis } from '../support/redis-server.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { settled } from '../support/settle.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { eventually } from '../support/wait.ts';

let smtp: TestSmtp;
let redis: Awaited<ReturnType<typeof startPrivateRedis>>;
let t: TestRuntime;
let workerPort: number;
/** The metrics page before any job ran, from the web app and from the worker's port. */
const before: { web: string; worker: string } = { web: '', worker: '' };

/** Every log line the runtime wrote, parsed. */
const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
    done();
  },
});
const TOKEN = 'metrics-token-for-the-outage-test';
const auth = { authorization: `Bearer ${TOKEN}` };
const scrape = async () => {
  forgetShopFigures();
  const res = await t.app.request('/metrics', { headers: auth });
  expect(res.status).toBe(200);
  return res.text();
};
/** The value of one sample, e.g. `shop_outbox_backlog`; undefined when the series is absent. */
const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

beforeAll(async () => {
  smtp = await startSmtp();
  redis = await startPrivateRedis();
  workerPort = await freePort();
  t = await startTestRuntime({
    mode: 'all',
    smtpUrl: smtp.url,
    redisUrl: redis.url,
    env: { METRICS_TOKEN: TOKEN, WORKER_METRICS_PORT: String(workerPort) },
    log: createLogger('info', { instance: 'outage-test', mode: 'all' }, sink),
  });
  before.web = await scrape();
  before.worker = await (await fetch(`http://127.0.0.1:${workerPort}/metrics`, { headers: auth })).text();
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'admin@example.jp', password: 'admin-pass-123' });
});
afterAll(async () => {
  await redis?.start().catch(() => undefined);
  await t?.stop();
  await redis?.stop();
  await smtp?.close();
});

it('exports the job counters at 0 for every queue before any job ran, and both sources as up', () => {
  for (const text of [before.web, before.worker]) {
    for (const queue of ['mail', 'payments', 'exports']) {
      expect(sample(text, `shop_jobs_completed_total{queue="${queue}"}`)).toBe(0);
      expect(sample(text, `shop_jobs_failed_total{queue="${queue}",final="true"}`)).toBe(0);
      expect(sample(text, `shop_jobs_failed_total{queue="${queue}",final="false"}`)).toBe(0);
    }
    expect(sample(text, 'shop_metrics_source_up{source="postgres"}')).toBe(1);
    expect(sample(text, 'shop_metrics_source_up{source="redis"}')).toBe(1);
    expect(sample(text, 'shop_outbox_backlog')).toBe(0);
    expect(sample(text, 'shop_workers_fresh')).toBeGreaterThanOrEqual(0);
  }
});

it('keeps requests working while Redis is down and delivers the waiting e-mail once it is back', async () => {
  const outageStart = lines.length;
  const downAt = Date.now();
  await redis.stop();

  // Requests still succeed: sign-in (its rate limiter lets requests through) and a change with an event.
  const client = new TestClient(t.app);
  const login = await client.login('admin@example.jp', 'admin-pass-123');
  expect(login.status).toBe(200);
  // Still ready (a Redis failover seen by every host must not take them all out of the load balancer),
  // and saying what is wrong.
  const ready = await t.app.request('/readyz');
  expect(ready.status).toBe(200);
  const body = await ready.json();
  expect(body.status).toBe('degraded');
  expect(body.checks.database).toBe('ok');
  expect(body.checks.redis).not.toBe('ok');

  const email = `outage-${Date.now()}@example.jp`;
  const since = new Date();
  await aMember(t.runtime.deps.orm, {
    email,
    password: 'member-pass-123',
    lastName: '高橋',
    firstName: '三郎',
    emailVerified: false,
  });
  // A pass of the relay that claims the event is refused by Redis (one finding it claimed by the
  // running relay publishes nothing and is tried again): the event waits in the outbox.
  const refused = () =>
    t.runtime.relay.publishPending().then(
      () => false,
      () => true,
    );
  await eventually(refused, 10_000, 'a publish refused by Redis');
  const waiting = await t.runtime.deps.orm.em
    .fork()
    .execute("select count(*)::int as n from outbox_events where published_at is null and name = 'UserRegistered'");
  expect(waiting[0]?.n).toBe(1);
  expect(smtp.messages.some(smtp.to(email))).toBe(false);

  // The scrape tells the truth: the outbox from PostgreSQL, nothing of what only Redis knows (never 0).
  const during = await scrape();
  expect(sample(during, 'shop_metrics_source_up{source="postgres"}')).toBe(1);
  expect(sample(during, 'shop_metrics_source_up{source="redis"}')).toBe(0);
  expect(sample(during, 'shop_outbox_backlog')).toBeGreaterThan(0);
  expect(sample(during, 'shop_outbox_oldest_unpublished_age_seconds')).toBeGreaterThanOrEqual(0);
  expect(sample(during, 'shop_mail_deliveries{state="failed"}')).toBe(0);
  expect(sample(during, 'shop_payments_flagged{state="open"}')).toBe(0);
  for (const series of ['shop_workers_fresh', 'shop_sweeper_last_run_timestamp_seconds', 'shop_sweeper_last_run_redriven_jobs']) {
    expect(sample(during, series)).toBeUndefined();
  }
  expect(during).not.toMatch(/^shop_queue_jobs\{/m);
  // 運用状況 answers too: PostgreSQL's figures, and plainly no Redis figures.
  const ops = await client.get('/api/operations');
  expect(ops.status).toBe(200);
  const { operations } = await ops.json();
  expect(operations).toMatchObject({ redis_available: false, queues: null, workers: null, sweeper: null });
  expect(operations.outbox.backlog).toBeGreaterThan(0);

  await redis.start();
  const upAt = Date.now();
  const mail = await smtp.waitFor(smtp.to(email), 30_000);
  expect(mail.subject).toContain('メールアドレスの確認');
  // Its event acknowledged and no job left: a second copy would be here by now.
  await settled(t.runtime.deps, 'the delivery after the outage', { since });
  expect(smtp.messages.filter(smtp.to(email))).toHaveLength(1);
  expect((await t.app.request('/readyz')).status).toBe(200);
  expect(sample(await scrape(), 'shop_metrics_source_up{source="redis"}')).toBe(1);

  // The outage in the log: per connection one warn line per 10 s at most, naming the address, then
  // one info line; no error lines for what ioredis and BullMQ retry on their own.
  await eventually(
    async () => lines.slice(outageStart).filter((l) => l.msg === 'Redis reachable again').length === 2,
    10_000,
    'both connections logged as back',
  );
  const outage = lines.slice(outageStart);
  expect(outage.filter((l) => l.level === 'error')).toEqual([]);
  const allowed = Math.floor((upAt - downAt) / 10_000) + 1;
  for (const component of ['redis', 'worker']) {
    const warned = outage.filter((l) => l.msg === 'Redis unreachable; retrying' && l.component === component);
    expect(warned.length).toBeGreaterThanOrEqual(1);
    expect(warned.length).toBeLessThanOrEqual(allowed);
    expect(warned[0]).toMatchObject({ level: 'warn', address: redis.url.replace(/\/?$/, '') });
    const back = outage.filter((l) => l.msg === 'Redis reachable again' && l.component === component);
    expect(back).toHaveLength(1);
    expect(back[0]?.level).toBe('info');
  }
  expect(outage.some((l) => String(l.msg).includes('worker error'))).toBe(false);
}, 60_000);
