import { type Job, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Em, Orm } from '../src/db/orm.ts';
import { parseEvent, type QueueName } from '../src/events/contracts.ts';
import { cappedBackoff } from '../src/events/queues.ts';
import type { JobOrigin } from '../src/events/relay.ts';
import type { JobContext, JobResult } from '../src/jobs/context.ts';
import { isPermanent } from '../src/jobs/errors.ts';
import { errorReporter } from '../src/lib/error-reporting.ts';
import { jobDuration } from '../src/lib/metrics.ts';
import { SAFE_REQUEST_ID, withRequestContext } from '../src/lib/request-context.ts';
import { handlerFor } from './handlers.ts';

/** The request that caused a job, as the relay put it in the job's data (unsafe values are dropped). */
function originOf(job: Job): JobOrigin {
  const { requestId, trace } = (job.data ?? {}) as JobOrigin;
  return {
    requestId: typeof requestId === 'string' && SAFE_REQUEST_ID.test(requestId) ? requestId : undefined,
    trace: trace && typeof trace === 'object' ? trace : undefined,
  };
}

export interface WorkerServices extends Omit<JobContext, 'em' | 'log'> {
  orm: Orm;
  log: JobContext['log'];
}

/**
 * A thin dispatcher: job name → the owning module's handler, with an EntityManager forked per job.
 * Jobs carry the event (ids only); a malformed or unknown one can never succeed, so it fails for good,
 * as does a handler's PermanentJobError (e.g. SMTP 5xx for the recipient). Any other error is
 * temporary: the job is retried with capped back-off for 24 hours or more (src/events/queues.ts).
 */
export function createEventWorker(
  queue: QueueName,
  connection: Redis,
  services: WorkerServices,
  concurrency = 5,
  prefix = 'shop',
  options: { maxRetryDelayMs?: number } = {},
) {
  return new Worker(
    queue,
    async (job: Job): Promise<JobResult> => {
      // Every log line, event and Sentry report of the job names the request that caused it, and its
      // Sentry transaction continues that request's trace.
      const origin = originOf(job);
      const started = performance.now();
      let outcome = 'failed';
      try {
        const sentry = errorReporter();
        const result = await withRequestContext({ requestId: origin.requestId, trace: origin.trace }, () =>
          !sentry
            ? run(job)
            : sentry.withIsolationScope((scope) => {
                if (origin.requestId) scope.setTag('request_id', origin.requestId);
                scope.setTag('queue', queue);
                scope.setTag('job_id', String(job.id));
                return sentry.continueTrace({ sentryTrace: origin.trace?.sentryTrace, baggage: origin.trace?.baggage }, () =>
                  sentry.startSpan({ name: `${queue} ${job.name}`, op: 'queue.process' }, () => run(job)),
                );
              }),
        );
        outcome = result;
        return result;
      } finally {
        jobDuration.observe({ queue, outcome }, (performance.now() - started) / 1000);
      }
    },
    {
      connection,
      concurrency,
      prefix,
      autorun: true,
      // A killed worker's job is taken over once its lock runs out (JOB_LOCK_SECONDS).
      lockDuration: services.env.jobLockMs,
      stalledInterval: services.env.jobLockMs,
      settings: { backoffStrategy: cappedBackoff(options.maxRetryDelayMs ?? services.env.jobRetryMaxDelayMs) },
    },
  );

  async function run(job: Job): Promise<JobResult> {
    let event: ReturnType<typeof parseEvent>;
    try {
      event = parseEvent(job.data);
    } catch (error) {
      throw new UnrecoverableError(`bad event: ${error instanceof Error ? error.message : String(error)}`);
    }
    const handler = handlerFor(queue, event);
    if (!handler) throw new UnrecoverableError(`no handler for ${event.name} on ${queue}`);
    const log = services.log.child({ queue, job: job.id, event: event.name });
    try {
      const result = await handler({ ...services, em: services.orm.em.fork() as Em, log, event }, event);
      log.info('job finished', { result });
      return result;
    } catch (error) {
      if (isPermanent(error)) throw new UnrecoverableError(error.message);
      throw error;
    }
  }
}
