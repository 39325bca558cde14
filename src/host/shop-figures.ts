import type { Redis } from 'ioredis';
import type { Em, Orm } from '../db/orm.ts';
import { outboxFigures } from '../events/outbox.ts';
import type { Queues } from '../events/queues.ts';
import { sweeperRunKey } from '../events/sweeper.ts';
import type { FigureSources, PostgresFigures, RedisFigures } from '../lib/metrics.ts';
import { flaggedPaymentFigures, paymentsInboxFigures } from '../modules/checkout/index.ts';
import { recentWorkers } from '../modules/health/index.ts';
import { mailFigures } from '../modules/mail/index.ts';
import { exportFigures } from '../modules/sales/index.ts';

/**
 * The shop's backlog as one operator sees it, whichever process is asked: queue depths from Redis,
 * everything that must survive Redis losing its data (outbox, payments inbox, flagged payments, mail,
 * exports) from PostgreSQL, read apart so that a Redis outage leaves the PostgreSQL figures in the scrape.
 */
export function shopFigureSources(orm: Orm, redis: Redis, queues: Queues): FigureSources {
  return { postgres: () => postgresFigures(orm), redis: () => redisFigures(redis, queues) };
}

async function postgresFigures(orm: Orm): Promise<PostgresFigures> {
  const em = orm.em.fork() as Em;
  const [outbox, paymentsInbox, flaggedPayments, mail, exports] = await Promise.all([
    outboxFigures(em),
    paymentsInboxFigures(em),
    flaggedPaymentFigures(em),
    mailFigures(em),
    exportFigures(em),
  ]);
  return { outbox, paymentsInbox, flaggedPayments, mail, exports };
}

async function redisFigures(redis: Redis, queues: Queues): Promise<RedisFigures> {
  const prefix = queues.mail.opts.prefix ?? 'bull';
  const [sweeper, workers, queueCounts] = await Promise.all([
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
    sweeper: { lastRunAt: lastRun?.at ?? null, redriven: lastRun?.redriven ?? 0 },
    workers: { fresh: workers.length },
  };
}
