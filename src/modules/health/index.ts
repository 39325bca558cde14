import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { Hono } from 'hono';
import * as v from 'valibot';
import { ping } from '../../db/kysely.ts';
import { poolStats } from '../../db/orm.ts';
import type { AppEnv, AppModule } from '../../http/context.ts';
import { permit } from '../../http/guards.ts';
import { operation } from '../../http/openapi.ts';
import { metricsFor, readShopFigures } from '../../lib/metrics.ts';
import { assertNoEviction, RedisPolicyError } from '../../lib/redis.ts';
import { recentWorkers } from './heartbeat.ts';

export { recentWorkers, startWorkerHeartbeat } from './heartbeat.ts';
export { workersAlive } from './workers-alive.ts';

/** A load balancer must not wait for the pool's own timeout. */
const CHECK_MS = 3_000;
/** Less long: a load balancer's check times out after its interval (HAProxy `inter`, often 1 s or less). */
const REDIS_CHECK_MS = 250;

async function check(work: () => Promise<void>, ms = CHECK_MS): Promise<{ status: string; error?: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      work(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      }),
    ]);
    return { status: 'ok' };
  } catch (error) {
    return { status: error instanceof Error ? error.message : String(error), error };
  } finally {
    clearTimeout(timer);
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest();
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/i;

/** The metrics scraper and loopback clients (as the rate limits see the address). */
function mayReadDetails(c: Context<AppEnv>): boolean {
  const { metricsToken, trustProxyHeader } = c.var.deps.env;
  const authorization = c.req.header('authorization');
  if (metricsToken && authorization && timingSafeEqual(digest(authorization), digest(`Bearer ${metricsToken}`))) return true;
  let address: string | undefined;
  try {
    address = getConnInfo(c).remote.address;
  } catch {
    return true; // no socket: called from inside this process
  }
  const forwarded = trustProxyHeader ? c.req.header(trustProxyHeader)?.split(',').pop()?.trim() : undefined;
  const client = forwarded || address;
  return Boolean(client && isIP(client) && LOOPBACK.test(client));
}

/** Redis not answering is `degraded` but 200: a failover seen by every host must not empty the load balancer (docs/decisions/0024-drain.md). */
const healthRoutes = new Hono<AppEnv>()
  .get('/healthz', (c) => c.json({ status: 'ok' }))
  .get('/readyz', async (c) => {
    const { orm, redis, queues, drain } = c.var.deps;
    // The load balancer must stop sending new requests before this process stops accepting them.
    if (drain.draining) return c.json({ status: 'draining' }, 503);
    const [database, redisCheck] = await Promise.all([
      check(async () => {
        await ping(orm.em.fork());
      }),
      check(() => assertNoEviction(redis), REDIS_CHECK_MS),
    ]);
    const ready = database.status === 'ok' && !(redisCheck.error instanceof RedisPolicyError);
    const prefix = queues.mail.opts.prefix ?? 'bull';
    let workers: Awaited<ReturnType<typeof recentWorkers>> | undefined;
    const [pool] = await Promise.all([
      poolStats(orm).catch(() => undefined),
      redisCheck.status === 'ok' &&
        check(async () => {
          workers = await recentWorkers(redis, prefix);
        }, REDIS_CHECK_MS),
    ]);
    // No worker heard from: this process can serve, but mail, payments and exports wait (`degraded`).
    const degraded = redisCheck.status !== 'ok' || workers?.length === 0;
    const status = !ready ? 'unavailable' : degraded ? 'degraded' : 'ok';
    if (!mayReadDetails(c)) return c.json({ status }, ready ? 200 : 503);
    return c.json({ status, checks: { database: database.status, redis: redisCheck.status }, pool, workers }, ready ? 200 : 503);
  })
  // Prometheus, only with `Authorization: Bearer $METRICS_TOKEN`; without a token configured, no such page.
  .get('/metrics', async (c) => {
    const page = await metricsFor(c.var.deps.env.metricsToken, c.req.header('authorization'));
    if (!page) return c.json({ message: 'お探しのページは見つかりませんでした。' }, 404);
    return c.body(page.body, 200, { 'Content-Type': page.contentType, 'Cache-Control': 'no-store' });
  });

const counts = (...names: string[]) => v.object(Object.fromEntries(names.map((name) => [name, v.number()])));
const operationsDoc = operation('get', {
  summary: '運用の状況（キュー、アウトボックス、決済、メール、エクスポート）',
  tags: ['運用'],
  access: 'admin',
  permission: 'operations:read',
  answers: {
    200: v.object({
      operations: v.object({
        /** False while Redis cannot be read: the queue, sweeper and worker figures are then null. */
        redis_available: v.boolean(),
        queues: v.nullable(v.record(v.string(), counts('waiting', 'active', 'delayed', 'failed'))),
        outbox: counts('backlog', 'oldest_age_seconds'),
        payments_inbox: counts('unprocessed', 'failed'),
        /** Payments reconciliation found different from the sales, not yet marked 確認済み (shop_payments_flagged). */
        payments_flagged: counts('open'),
        mail: counts('failed', 'retrying', 'pending', 'stuck'),
        exports: v.object({ ...counts('queued', 'running', 'retrying', 'failed').entries, running_on: v.array(v.string()) }),
        sweeper: v.nullable(v.object({ last_run_at: v.nullable(v.pipe(v.string(), v.isoTimestamp())), redriven: v.number() })),
        workers: v.nullable(counts('fresh')),
      }),
    }),
  },
});

const healthApi = new Hono<AppEnv>().get('/operations', operationsDoc, permit('operations:read'), async (c) => {
  const f = await readShopFigures();
  const r = f.redis;
  return c.json({
    operations: {
      redis_available: r !== undefined,
      queues: r?.queues ?? null,
      outbox: { backlog: f.outbox.backlog, oldest_age_seconds: f.outbox.oldestAgeSeconds },
      payments_inbox: f.paymentsInbox,
      payments_flagged: f.flaggedPayments,
      mail: f.mail,
      exports: {
        queued: f.exports.queued,
        running: f.exports.running,
        retrying: f.exports.retrying,
        failed: f.exports.failed,
        running_on: f.exports.runningOn,
      },
      sweeper: r
        ? {
            last_run_at: r.sweeper.lastRunAt ? new Date(r.sweeper.lastRunAt).toISOString() : null,
            redriven: r.sweeper.redriven,
          }
        : null,
      workers: r ? { fresh: r.workers.fresh } : null,
    },
  });
});

export const health = { name: 'health', root: healthRoutes, api: healthApi, entities: [] } satisfies AppModule;
