import type { Redis } from 'ioredis';
import type { Em, Orm } from '../db/orm.ts';
import { outboxFigures } from '../events/outbox.ts';
import type { Queues } from '../events/queues.ts';
import { sweeperRunKey } from '../events/sweeper.ts';
import type { ShopFigures } from '../lib/metrics.ts';
import { paymentsInboxFigures } from '../modules/checkout/index.ts';
import { recentWorkers } from '../modules/health/index.ts';
import { mailFigures } from '../modules/mail/index.ts';
import { exportFigures } from '../modules/sales/index.ts';

/**
 * The shop's backlog as one operator sees it, whichever process is asked: queue depths from Redis,
 * everything that must survive Redis losing its data (outbox, payments inbox, mail, exports) from
 * PostgreSQL. The metrics' shop-wide gauges and the administrators' operations view both read this.
 */
export async function shopFigures(orm: Orm, redis: Redis, queues: Queues): Promise<ShopFigures> {
  const em = orm.em.fork() as Em;
  const prefix = queues.mail.opts.prefix ?? 'bull';
  const [outbox, paymentsInbox, mail, exports, sweeper, workers, queueCounts] = await Promise.all([
    outboxFigures(em),
    paymentsInboxFigures(em),
    mailFigures(em),
    exportFigures(em),
    redis.get(sweeperRunKey(prefix)),
    recentWorkers(redis, prefix),
    Promise.all(
      Object.entries(queues).map(async ([name, queue]) => {
        const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
        return [
          name,
          {
            waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
            active: counts.active ?? 0,
            delayed: counts.delayed ?? 0,
            failed: counts.failed ?? 0,
          },
        ] as const;
      }),
    ),
  ]);
  const lastRun = sweeper ? (JSON.parse(sweeper) as { at: number; redriven: number }) : undefined;
  return {
    queues: Object.fromEntries(queueCounts),
    outbox,
    paymentsInbox,
    mail,
    exports,
    sweeper: { lastRunAt: lastRun?.at ?? null, redriven: lastRun?.redriven ?? 0 },
    workers: { fresh: workers.length },
  };
}
