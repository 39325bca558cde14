import { type JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { type QueueName, queueNames } from './contracts.ts';

/**
 * Retry budgets that fit real outages. A temporary failure (SMTP 4xx or timeout, a refused connection,
 * PostgreSQL or Stripe unavailable) is retried with back-off — 2 s, 4 s, 8 s … doubling up to a cap
 * (5 minutes unless JOB_RETRY_MAX_DELAY_SECONDS says otherwise), with ±20 % jitter so a recovering
 * service is not hit by every job at once — for at least 24 hours before the job is given up.
 * A permanent failure throws UnrecoverableError (the worker maps PermanentJobError) and stops at once.
 */
export const RETRY = {
  firstDelayMs: 2_000,
  maxDelayMs: 5 * 60_000,
  /** How long a temporary failure is retried at the default cap, at least. */
  budgetMs: 24 * 3600_000,
} as const;

/** The delay before retry number `attemptsMade` (1: after the first failure), without jitter. */
export function retryDelayMs(attemptsMade: number, maxDelayMs: number = RETRY.maxDelayMs): number {
  const exponent = Math.min(Math.max(attemptsMade - 1, 0), 30);
  return Math.min(maxDelayMs, RETRY.firstDelayMs * 2 ** exponent);
}

/**
 * The custom back-off of every worker (its `settings.backoffStrategy`), capped at `maxDelayMs`. An
 * error that knows when trying again makes sense (`retryAfterMs`, e.g. a mail claimed by another
 * attempt until its lease runs out) is retried then instead.
 */
export const cappedBackoff =
  (maxDelayMs: number = RETRY.maxDelayMs) =>
  (attemptsMade: number, _type?: string, error?: Error): number => {
    const after = (error as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
    if (typeof after === 'number' && Number.isFinite(after) && after > 0) return Math.round(after);
    return Math.round(retryDelayMs(attemptsMade, maxDelayMs) * (0.8 + Math.random() * 0.4));
  };

/** Attempts whose un-jittered delays add up to at least `budgetMs` (jitter averages out). */
function attemptsFor(budgetMs: number, maxDelayMs: number = RETRY.maxDelayMs): number {
  let waited = 0;
  let attempts = 1;
  while (waited < budgetMs) waited += retryDelayMs(attempts++, maxDelayMs);
  return attempts;
}

/** The one retry policy: attempts, back-off and what is kept. Permanent failures throw UnrecoverableError. */
export const defaultJobOptions: JobsOptions = {
  // About 300 attempts: 8 minutes of doubling delays, then one every 5 minutes, for 24 hours or more.
  attempts: attemptsFor(RETRY.budgetMs),
  backoff: { type: 'capped', delay: RETRY.firstDelayMs },
  removeOnComplete: { age: 7 * 24 * 3600, count: 10_000 },
  removeOnFail: { age: 30 * 24 * 3600 },
};

export type Queues = Record<QueueName, Queue>;

/**
 * Queues for producers. Their connection must fail fast (no offline queue): `Queue.add()` would
 * otherwise wait silently while Redis is down, and the outbox relay needs to know to retry later.
 */
export function createQueues(connection: Redis, prefix = 'shop'): Queues {
  const entries = queueNames.map((name) => {
    const queue = new Queue(name, { connection, prefix, defaultJobOptions });
    // Connection errors surface on `add()`, where the relay handles them.
    queue.on('error', () => undefined);
    return [name, queue] as const;
  });
  return Object.fromEntries(entries) as Queues;
}

export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.all(Object.values(queues).map((q) => q.close()));
}
