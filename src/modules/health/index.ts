// The health module: liveness and readiness for load balancers and supervisors, and the workers' heartbeat.
import { Hono } from 'hono';
import { poolStats } from '../../db/orm.ts';
import type { AppEnv, AppModule } from '../../http/context.ts';
import { assertNoEviction } from '../../lib/redis.ts';
import { recentWorkers } from './heartbeat.ts';

export { recentWorkers, startWorkerHeartbeat, type WorkerBeat, type WorkerHeartbeat } from './heartbeat.ts';

/** A check answers within this time or counts as failed (a load balancer must not wait for the pool's own timeout). */
const CHECK_MS = 3_000;

async function check(work: () => Promise<void>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      work(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_MS} ms`)), CHECK_MS);
      }),
    ]);
    return 'ok';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * /healthz: the process answers. /readyz: the process is not shutting down, PostgreSQL and Redis answer,
 * and Redis will not evict jobs; it also shows the connection pool's counters and the workers heard from (information, not readiness).
 */
const healthRoutes = new Hono<AppEnv>()
  .get('/healthz', (c) => c.json({ status: 'ok' }))
  .get('/readyz', async (c) => {
    const { orm, redis, queues, drain } = c.var.deps;
    // The load balancer must stop sending new requests before this process stops accepting them.
    if (drain.draining) return c.json({ status: 'draining' }, 503);
    const [database, redisStatus] = await Promise.all([
      check(async () => {
        await orm.em.fork().execute('select 1');
      }),
      check(() => assertNoEviction(redis)),
    ]);
    const ready = database === 'ok' && redisStatus === 'ok';
    const prefix = queues.mail.opts.prefix ?? 'bull';
    const [pool, workers] = await Promise.all([
      poolStats(orm).catch(() => undefined),
      redisStatus === 'ok' ? recentWorkers(redis, prefix).catch(() => undefined) : undefined,
    ]);
    return c.json(
      { status: ready ? 'ok' : 'unavailable', checks: { database, redis: redisStatus }, pool, workers },
      ready ? 200 : 503,
    );
  });

export const health = { name: 'health', root: healthRoutes, entities: [] } satisfies AppModule;
