import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { QueueName } from '../src/events/contracts.ts';
import { missingHandlers } from '../src/host/handlers.ts';
import { createEventWorker, type WorkerServices } from './event-worker.ts';

const QUEUES: readonly QueueName[] = ['mail', 'payments', 'exports'];
/** Payments run one at a time, so a refund normally follows the sale it refunds. */
const CONCURRENCY: Partial<Record<QueueName, number>> = { payments: 1, exports: 1 };

export interface Workers {
  workers: Worker[];
  /** Stops taking jobs, lets in-flight jobs finish, then closes. */
  close(): Promise<void>;
}

export function startWorkers(connection: Redis, services: WorkerServices, prefix = 'shop'): Workers {
  const missing = missingHandlers(QUEUES);
  if (missing.length) throw new Error(`events routed to a queue without a handler: ${missing.join(', ')}`);
  const workers = QUEUES.map((queue) => createEventWorker(queue, connection, services, CONCURRENCY[queue] ?? 5, prefix));
  for (const worker of workers) {
    worker.on('failed', (job, error) =>
      services.log.warn('job failed', { queue: worker.name, job: job?.id, attempts: job?.attemptsMade, error: error.message }),
    );
    worker.on('error', (error) => services.log.error('worker error', { queue: worker.name, error: error.message }));
  }
  return {
    workers,
    async close() {
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}
