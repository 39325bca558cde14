import { type JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { type QueueName, queueNames } from './contracts.ts';

/** The one retry policy: attempts, back-off and what is kept. Permanent failures throw UnrecoverableError. */
export const defaultJobOptions: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 2_000 },
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
