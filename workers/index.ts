import { type Job, UnrecoverableError, type Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Em } from '../src/db/orm.ts';
import { type DomainEvent, parseEvent, type QueueName } from '../src/events/contracts.ts';
import { acknowledgeEvent } from '../src/events/outbox.ts';
import { closeQueues, createQueues } from '../src/events/queues.ts';
import { type GiveUps, Sweeper, type SweeperHandle, type SweepSource, startSweeper } from '../src/events/sweeper.ts';
import { errorReporter } from '../src/lib/error-reporting.ts';
import { jobsCompleted, jobsFailed } from '../src/lib/metrics.ts';
import { reportRedisError } from '../src/lib/redis.ts';
import { bankTransferSweep, konbiniReminders, sweepStripeEvents } from '../src/modules/checkout/index.ts';
import { EXPORT_INTERRUPTED, markExportFailed, sweepExports } from '../src/modules/sales/index.ts';
import { createEventWorker, type WorkerServices } from './event-worker.ts';
import { missingHandlers } from './handlers.ts';

const QUEUES: readonly QueueName[] = ['mail', 'payments', 'exports', 'announcements'];
/** Payments run one at a time, so a refund normally follows the sale it refunds; announcements, to keep their pace. */
const CONCURRENCY: Partial<Record<QueueName, number>> = { payments: 1, exports: 1, announcements: 1 };

/** What modules add to a sweep: their own missing effects and clean-up. */
const SWEEP_SOURCES: SweepSource[] = [sweepExports, sweepStripeEvents, konbiniReminders(), bankTransferSweep()];

/** What a job failed for good means to its module; events without an entry are re-driven by the sweeper. */
const GIVE_UPS: GiveUps = {
  ExportRequested: async (ctx, event, reason) => {
    const { exportId } = (event as DomainEvent<'ExportRequested'>).payload;
    const stalled = /stalled/i.test(reason);
    await markExportFailed(ctx, exportId, stalled ? EXPORT_INTERRUPTED : undefined);
  },
};

export interface Workers {
  workers: Worker[];
  sweeper: SweeperHandle;
  /** The jobs being run, as `queue:name:id` (logged when a shutdown cuts them). */
  active(): string[];
  /** Stops taking jobs, lets in-flight jobs finish, then closes (once, however often it is called). */
  close(): Promise<void>;
}

/** A job that will not be tried again: UnrecoverableError, or its last attempt. */
const finalFailure = (job: Job, error: Error) =>
  error instanceof UnrecoverableError || error.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);

export function startWorkers(connection: Redis, services: WorkerServices, prefix = 'shop'): Workers {
  const missing = missingHandlers(QUEUES);
  if (missing.length) throw new Error(`events routed to a queue without a handler: ${missing.join(', ')}`);
  const { log, env, orm } = services;
  const sweeper = new Sweeper(orm, createQueues(connection, prefix), log.child({ component: 'sweeper' }), {
    graceMs: env.sweep.graceMs,
    files: services.files,
    sources: SWEEP_SOURCES,
    giveUps: GIVE_UPS,
    runs: { redis: connection, prefix },
  });
  const workers = QUEUES.map((queue) => createEventWorker(queue, connection, services, CONCURRENCY[queue] ?? 5, prefix));
  const active = new Map<string, string>();
  for (const worker of workers) {
    const queue = worker.name as QueueName;
    const key = (job: Job) => `${queue}:${job.id}`;
    worker.on('active', (job) => active.set(key(job), `${queue}:${job.name}:${job.id}`));
    // The handler finished: the outbox row learns it, so the sweeper leaves it alone. A lost
    // acknowledgement only makes the sweeper find the job completed and acknowledge it then.
    worker.on('completed', (job) => {
      active.delete(key(job));
      jobsCompleted.inc({ queue });
      acknowledgeEvent(orm.em.fork() as Em, String(job.id), queue).catch((error) =>
        log.warn('could not acknowledge a finished job', { queue, job: job.id, error: String(error) }),
      );
    });
    worker.on('failed', (job, error) => {
      if (job) active.delete(key(job));
      const final = !job || finalFailure(job, error);
      jobsFailed.inc({ queue, final: String(final) });
      const requestId = (job?.data as { requestId?: unknown } | undefined)?.requestId;
      const fields = {
        queue,
        job: job?.id,
        event: job?.name,
        attempts: job?.attemptsMade,
        ...(typeof requestId === 'string' ? { requestId } : {}),
        error: error.message,
      };
      if (!final) {
        log.warn('job failed; it will be tried again', fields);
        return;
      }
      // Given up: an operator has to act (the ids say on what); Sentry hears of it when a DSN is set.
      log.error('job given up', fields);
      errorReporter()?.withScope((scope) => {
        scope.setTags({ queue, job_id: String(job?.id), event: String(job?.name) });
        if (typeof requestId === 'string') scope.setTag('request_id', requestId);
        scope.setContext('job', fields);
        errorReporter()?.captureMessage(`job given up: ${queue} ${job?.name} ${job?.id}: ${error.message}`, 'error');
      });
      if (!job) return;
      void giveUp(queue, job, error).catch((e) =>
        log.warn('could not record a job given up', { queue, job: job.id, error: String(e) }),
      );
    });
    worker.on('error', (error) =>
      reportRedisError(connection, error, (e) => log.error('worker error', { queue, error: e.message })),
    );
  }

  /**
   * A job failed for good: its module's give-up runs (an export becomes failed); an unrecoverable
   * failure or a given-up event is acknowledged, anything else waits for the sweeper to run it again.
   */
  async function giveUp(queue: QueueName, job: Job, error: Error) {
    const em = orm.em.fork() as Em;
    let event: ReturnType<typeof parseEvent>;
    try {
      event = parseEvent(job.data);
    } catch {
      await acknowledgeEvent(em, String(job.id), queue);
      return;
    }
    const handler = sweeper.giveUps[event.name];
    if (handler) await handler(sweeper.context(em), event, error.message);
    if (handler || error instanceof UnrecoverableError || error.name === 'UnrecoverableError') {
      await acknowledgeEvent(em, String(job.id), queue);
    }
  }

  const handle = startSweeper(connection, sweeper, log.child({ component: 'sweeper' }), {
    prefix,
    everyMs: env.sweep.everyMs,
  });
  let closed: Promise<void> | undefined;
  return {
    workers,
    sweeper: handle,
    active: () => [...active.values()],
    close() {
      closed ??= (async () => {
        await Promise.all(workers.map((w) => w.close()));
        await handle.close();
        await closeQueues(sweeper.queues);
      })();
      return closed;
    },
  };
}
