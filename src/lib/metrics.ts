import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics (prom-client): this process's figures and the shop-wide gauges read at scrape time (decision 0026). */
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

/** The job counters at 0 from a process's start, so that `increase()` counts its first job. */
export function countJobsOf(queues: readonly string[]): void {
  for (const queue of queues) {
    jobsCompleted.inc({ queue }, 0);
    for (const final of ['true', 'false']) jobsFailed.inc({ queue, final }, 0);
  }
}

/** The shop-wide figures PostgreSQL holds (they outlive anything Redis loses). */
export interface PostgresFigures {
  outbox: { backlog: number; oldestAgeSeconds: number };
  paymentsInbox: { unprocessed: number; failed: number };
  /** Payments reconciliation flagged that no administrator has marked 確認済み yet. */
  flaggedPayments: { open: number };
  mail: { failed: number; retrying: number; pending: number; stuck: number };
  exports: { queued: number; running: number; retrying: number; failed: number; runningOn: string[] };
}

/** The shop-wide figures only Redis knows. */
export interface RedisFigures {
  queues: Record<string, { waiting: number; active: number; delayed: number; failed: number }>;
  sweeper: { lastRunAt: number | null; redriven: number };
  workers: { fresh: number };
}

/** Where each part of the figures is read; one source failing leaves the other's figures in the scrape. */
export interface FigureSources {
  postgres: () => Promise<PostgresFigures>;
  redis: () => Promise<RedisFigures>;
}
type SourceName = keyof FigureSources;
type Read = { [S in SourceName]: Promise<Awaited<ReturnType<FigureSources[S]>> | undefined> };

const CACHE_MS = 5_000;
/** A scrape must answer even when a source hangs (Prometheus's own timeout is 10 s by default). */
const READ_TIMEOUT_MS = 3_000;
let sources: FigureSources | undefined;
let cached: { at: number; read: Read } | undefined;

/** Sets where the shop-wide gauges come from (boot does it once per process). */
export function shopFiguresFrom(from: FigureSources): void {
  sources = from;
  cached = undefined;
}

/** The figures read afresh (the operations view): the same reads as the gauges; Redis's part is absent while it cannot be read. */
export async function readShopFigures(): Promise<PostgresFigures & { redis?: RedisFigures }> {
  if (!sources) throw new Error('shop figures are not wired (boot sets them)');
  const [postgres, redis] = await Promise.all([sources.postgres(), withinTimeout(sources.redis)]);
  return { ...postgres, redis };
}

/** Forgets the cached figures: the next scrape reads them afresh (tests, and after a change an operator made). */
export function forgetShopFigures(): void {
  cached = undefined;
}

function withinTimeout<T>(read: () => Promise<T>): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), READ_TIMEOUT_MS);
  });
  const result = read().catch(() => undefined);
  return Promise.race([result, timeout]).finally(() => clearTimeout(timer));
}

function figures(): Read | undefined {
  if (!sources) return undefined;
  if (!cached || Date.now() - cached.at > CACHE_MS) {
    const from = sources;
    cached = { at: Date.now(), read: { postgres: withinTimeout(from.postgres), redis: withinTimeout(from.redis) } };
  }
  return cached.read;
}

/**
 * A gauge computed at scrape time from one source. When that source cannot be read the gauge has no
 * sample at all (never 0): `remove()` without labels also drops a label-less gauge's series.
 */
function shopGauge<L extends string, S extends SourceName>(
  name: string,
  help: string,
  labelNames: readonly L[],
  from: S,
  set: (gauge: Gauge<L>, figures: Awaited<ReturnType<FigureSources[S]>>) => void,
) {
  return new Gauge<L>({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      this.reset();
      const current = await figures()?.[from];
      if (current) set(this, current as Awaited<ReturnType<FigureSources[S]>>);
      else if (labelNames.length === 0) (this as Gauge).remove();
    },
  });
}

new Gauge({
  name: 'shop_metrics_source_up',
  help: 'Whether this process could read the source of the shop-wide figures at this scrape (1) or not (0)',
  labelNames: ['source'] as const,
  registers: [registry],
  async collect() {
    const read = figures();
    for (const source of ['postgres', 'redis'] as const) {
      this.set({ source }, (await read?.[source]) ? 1 : 0);
    }
  },
});

shopGauge('shop_queue_jobs', 'BullMQ jobs by queue and state', ['queue', 'state'], 'redis', (g, f) => {
  for (const [queue, counts] of Object.entries(f.queues)) {
    for (const [state, n] of Object.entries(counts)) g.set({ queue, state }, n);
  }
});
shopGauge('shop_outbox_backlog', 'Domain events recorded but not yet published to the queues', [], 'postgres', (g, f) =>
  g.set(f.outbox.backlog),
);
shopGauge(
  'shop_outbox_oldest_unpublished_age_seconds',
  'Age of the oldest unpublished outbox event (0: none)',
  [],
  'postgres',
  (g, f) => g.set(f.outbox.oldestAgeSeconds),
);
shopGauge('shop_payments_inbox_events', 'Stripe events received and not processed, by state', ['state'], 'postgres', (g, f) => {
  g.set({ state: 'unprocessed' }, f.paymentsInbox.unprocessed);
  g.set({ state: 'failed' }, f.paymentsInbox.failed);
});
shopGauge(
  'shop_payments_flagged',
  'Payments reconciliation found different from the sales, by state (open: not yet acknowledged by an administrator)',
  ['state'],
  'postgres',
  (g, f) => g.set({ state: 'open' }, f.flaggedPayments.open),
);
shopGauge(
  'shop_mail_deliveries',
  'E-mails not sent, by state (failed: for good, until resent)',
  ['state'],
  'postgres',
  (g, f) => {
    g.set({ state: 'failed' }, f.mail.failed);
    g.set({ state: 'retrying' }, f.mail.retrying);
    g.set({ state: 'pending' }, f.mail.pending);
    g.set({ state: 'stuck' }, f.mail.stuck);
  },
);
shopGauge(
  'shop_exports',
  'CSV exports by state (retrying: queued or running again after a failed attempt)',
  ['state'],
  'postgres',
  (g, f) => {
    g.set({ state: 'queued' }, f.exports.queued);
    g.set({ state: 'running' }, f.exports.running);
    g.set({ state: 'retrying' }, f.exports.retrying);
    g.set({ state: 'failed' }, f.exports.failed);
  },
);
shopGauge('shop_sweeper_last_run_timestamp_seconds', 'When the sweeper last ran (Unix time; 0: not yet)', [], 'redis', (g, f) =>
  g.set(f.sweeper.lastRunAt ? f.sweeper.lastRunAt / 1000 : 0),
);
shopGauge('shop_sweeper_last_run_redriven_jobs', 'Jobs the last sweeper run re-drove', [], 'redis', (g, f) =>
  g.set(f.sweeper.redriven),
);
shopGauge('shop_workers_fresh', 'Worker processes whose heartbeat is fresh', [], 'redis', (g, f) => g.set(f.workers.fresh));

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
