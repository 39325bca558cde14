import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics (prom-client): one registry per process with the default process metrics, the
 * HTTP and job figures this process observes, and the shop-wide gauges computed at scrape time from
 * what every process shares (`ShopFigures`, cached a few seconds), so that one scrape sees the whole
 * shop. Served by GET /metrics (web) and WORKER_METRICS_PORT (worker), both behind METRICS_TOKEN.
 * Names: a `shop_` prefix, `_total`, `_seconds`; labels from small fixed sets, never ids.
 */
const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const httpRequestDuration = new Histogram({
  name: 'shop_http_request_duration_seconds',
  help: 'HTTP requests by method, route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const jobsCompleted = new Counter({
  name: 'shop_jobs_completed_total',
  help: 'Jobs this worker finished, by queue',
  labelNames: ['queue'] as const,
  registers: [registry],
});

export const jobsFailed = new Counter({
  name: 'shop_jobs_failed_total',
  help: 'Job attempts that failed, by queue; final="true" when the job will not be tried again',
  labelNames: ['queue', 'final'] as const,
  registers: [registry],
});

export const jobDuration = new Histogram({
  name: 'shop_job_duration_seconds',
  help: 'How long a job attempt ran, by queue and outcome',
  labelNames: ['queue', 'outcome'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [registry],
});

/** What every process shares, as the operator watches it (src/host/shop-figures.ts computes it). */
export interface ShopFigures {
  queues: Record<string, { waiting: number; active: number; delayed: number; failed: number }>;
  outbox: { backlog: number; oldestAgeSeconds: number };
  paymentsInbox: { unprocessed: number; failed: number };
  mail: { failed: number; retrying: number; pending: number; stuck: number };
  exports: { queued: number; running: number; retrying: number; failed: number };
  sweeper: { lastRunAt: number | null; redriven: number };
  workers: { fresh: number };
}

const CACHE_MS = 5_000;
let source: (() => Promise<ShopFigures>) | undefined;
let cached: { at: number; figures: Promise<ShopFigures | undefined> } | undefined;

/** Sets where the shop-wide gauges come from (boot does it once per process). */
export function shopFiguresFrom(read: () => Promise<ShopFigures>): void {
  source = read;
  cached = undefined;
}

/** The figures read afresh (the operations view): the same reads as the gauges. */
export function readShopFigures(): Promise<ShopFigures> {
  if (!source) return Promise.reject(new Error('shop figures are not wired (boot sets them)'));
  return source();
}

/** Forgets the cached figures: the next scrape reads them afresh (tests, and after a change an operator made). */
export function forgetShopFigures(): void {
  cached = undefined;
}

function figures(): Promise<ShopFigures | undefined> {
  if (!source) return Promise.resolve(undefined);
  if (!cached || Date.now() - cached.at > CACHE_MS) {
    const read = source;
    // A scrape while PostgreSQL or Redis is down still answers: the gauges are left out.
    cached = { at: Date.now(), figures: read().catch(() => undefined) };
  }
  return cached.figures;
}

function shopGauge<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  set: (gauge: Gauge<L>, figures: ShopFigures) => void,
) {
  return new Gauge<L>({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      this.reset();
      const current = await figures();
      if (current) set(this, current);
    },
  });
}

shopGauge('shop_queue_jobs', 'BullMQ jobs by queue and state', ['queue', 'state'], (g, f) => {
  for (const [queue, counts] of Object.entries(f.queues)) {
    for (const [state, n] of Object.entries(counts)) g.set({ queue, state }, n);
  }
});
shopGauge('shop_outbox_backlog', 'Domain events recorded but not yet published to the queues', [], (g, f) =>
  g.set(f.outbox.backlog),
);
shopGauge('shop_outbox_oldest_unpublished_age_seconds', 'Age of the oldest unpublished outbox event (0: none)', [], (g, f) =>
  g.set(f.outbox.oldestAgeSeconds),
);
shopGauge('shop_payments_inbox_events', 'Stripe events received and not processed, by state', ['state'], (g, f) => {
  g.set({ state: 'unprocessed' }, f.paymentsInbox.unprocessed);
  g.set({ state: 'failed' }, f.paymentsInbox.failed);
});
shopGauge('shop_mail_deliveries', 'E-mails not sent, by state (failed: for good, until resent)', ['state'], (g, f) => {
  g.set({ state: 'failed' }, f.mail.failed);
  g.set({ state: 'retrying' }, f.mail.retrying);
  g.set({ state: 'pending' }, f.mail.pending);
  g.set({ state: 'stuck' }, f.mail.stuck);
});
shopGauge(
  'shop_exports',
  'CSV exports by state (retrying: queued or running again after a failed attempt)',
  ['state'],
  (g, f) => {
    g.set({ state: 'queued' }, f.exports.queued);
    g.set({ state: 'running' }, f.exports.running);
    g.set({ state: 'retrying' }, f.exports.retrying);
    g.set({ state: 'failed' }, f.exports.failed);
  },
);
shopGauge('shop_sweeper_last_run_timestamp_seconds', 'When the sweeper last ran (Unix time; 0: not yet)', [], (g, f) =>
  g.set(f.sweeper.lastRunAt ? f.sweeper.lastRunAt / 1000 : 0),
);
shopGauge('shop_sweeper_last_run_redriven_jobs', 'Jobs the last sweeper run re-drove', [], (g, f) => g.set(f.sweeper.redriven));
shopGauge('shop_workers_fresh', 'Worker processes whose heartbeat is fresh', [], (g, f) => g.set(f.workers.fresh));

/**
 * The metrics page for a request's `Authorization` header: undefined (answer 404) when no token is
 * configured or the header does not carry it; the token is compared in constant time.
 */
export async function metricsFor(
  token: string | undefined,
  authorization: string | undefined,
): Promise<{ body: string; contentType: string } | undefined> {
  if (!token || !authorization) return undefined;
  const { timingSafeEqual, createHash } = await import('node:crypto');
  const digest = (value: string) => createHash('sha256').update(value).digest();
  if (!timingSafeEqual(digest(authorization), digest(`Bearer ${token}`))) return undefined;
  return { body: await registry.metrics(), contentType: registry.contentType };
}
