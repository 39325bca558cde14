import { type JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { type QueueName, queueNames } from './contracts.ts';

/** Temporary failures retried with jittered, capped back-off for at least 24 hours; permanent ones stop at once. */
export const RETRY = {
  firstDelayMs: 2_000,
  maxDelayMs: 5 * 60_000,
  budgetMs: 24 * 3600_000,
} as const;

export function retryDelayMs(attemptsMade: number, maxDelayMs: number = RETRY.maxDelayMs): number {
  const exponent = Math.min(Math.max(attemptsMade - 1, 0), 30);
  return Math.min(maxDelayMs, RETRY.firstDelayMs * 2 ** exponent);
}

/** An error that knows when trying again makes sense (`retryAfterMs`) is retried then instead. */
export const cappedBackoff =
  (maxDelayMs: number = RETRY.maxDelayMs) =>
  (attemptsMade: number, _type?: string, error?: Error): number => {
    const after = (error as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
    if (typeof after === 'number' && Number.isFinite(after) && after > 0) return Math.round(after);
    return Math.round(retryDelayMs(attemptsMade, maxDelayMs) * (0.8 + Math.random() * 0.4));
  };

function attemptsFor(budgetMs: number, maxDelayMs: number = RETRY.maxDelayMs): number {
  let waited = 0;
  let attempts = 1;
  while (waited < budgetMs) waited += retryDelayMs(attempts++, maxDelayMs);
  return attempts;
}

export const defaultJobOptions: JobsOptions = {
  // About 300 attempts: 8 minutes of doubling delays, then one every 5 minutes, for 24 hours or more.
  attempts: attemptsFor(RETRY.budgetMs),
  backoff: { type: 'capped', delay: RETRY.firstDelayMs },
  removeOnComplete: { age: 7 * 24 * 3600, count: 10_000 },
  removeOnFail: { age: 30 * 24 * 3600 },
};

export type Queues = Record<QueueName, Queue>;

/** No offline queue: the outbox relay needs `add()` to fail while Redis is down, to retry later. */
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
