import { type Job, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Em, Orm } from '../src/db/orm.ts';
import { parseEvent, type QueueName } from '../src/events/contracts.ts';
import { handlerFor } from '../src/host/handlers.ts';
import type { JobContext, JobResult } from '../src/jobs/context.ts';

export interface WorkerServices extends Omit<JobContext, 'em' | 'log'> {
  orm: Orm;
  log: JobContext['log'];
}

/**
 * A thin dispatcher: job name → the owning module's handler, with an EntityManager forked per job.
 * Jobs carry the event (ids only); a malformed or unknown one can never succeed, so it fails for good.
 */
export function createEventWorker(
  queue: QueueName,
  connection: Redis,
  services: WorkerServices,
  concurrency = 5,
  prefix = 'shop',
) {
  return new Worker(
    queue,
    async (job: Job): Promise<JobResult> => {
      let event: ReturnType<typeof parseEvent>;
      try {
        event = parseEvent(job.data);
      } catch (error) {
        throw new UnrecoverableError(`bad event: ${error instanceof Error ? error.message : String(error)}`);
      }
      const handler = handlerFor(queue, event);
      if (!handler) throw new UnrecoverableError(`no handler for ${event.name} on ${queue}`);
      const log = services.log.child({ queue, job: job.id, event: event.name });
      const result = await handler({ ...services, em: services.orm.em.fork() as Em, log }, event);
      log.info('job finished', { result });
      return result;
    },
    { connection, concurrency, prefix, autorun: true },
  );
}
