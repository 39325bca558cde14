// The health module: liveness and readiness for load balancers and supervisors.
import { Hono } from 'hono';
import type { AppEnv, AppModule } from '../../http/context.ts';
import { evictionPolicy } from '../../lib/redis.ts';

async function check(work: () => Promise<void>): Promise<string> {
  try {
    await work();
    return 'ok';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** /healthz: the process answers. /readyz: PostgreSQL and Redis answer, and Redis will not evict jobs. */
const healthRoutes = new Hono<AppEnv>()
  .get('/healthz', (c) => c.json({ status: 'ok' }))
  .get('/readyz', async (c) => {
    const { orm, redis } = c.var.deps;
    const [database, redisStatus] = await Promise.all([
      check(async () => {
        await orm.em.fork().execute('select 1');
      }),
      check(async () => {
        const policy = await evictionPolicy(redis);
        if (policy !== 'noeviction') throw new Error(`maxmemory-policy is ${policy}; BullMQ needs noeviction`);
      }),
    ]);
    const ready = database === 'ok' && redisStatus === 'ok';
    return c.json({ status: ready ? 'ok' : 'unavailable', checks: { database, redis: redisStatus } }, ready ? 200 : 503);
  });

export const health = { name: 'health', root: healthRoutes, entities: [] } satisfies AppModule;
