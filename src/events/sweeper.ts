import { type Job, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { jsonb, db as kysely, millisecondsAgo } from '../db/kysely.ts';
import type { Em, Orm } from '../db/orm.ts';
import type { Logger } from '../lib/logger.ts';
import { reportRedisError } from '../lib/redis.ts';
import type { FileStore } from '../storage/file-store.ts';
import {
  type DomainEvent,
  type EventName,
  type EventPayload,
  eventRoutes,
  parseEvent,
  type QueueName,
  type RoutedEvent,
} from './contracts.ts';
import { acknowledgeEvent, nudgeRelay, recordEvent } from './outbox.ts';
import type { Queues } from './queues.ts';
import { jobOf, type OutboxRow } from './relay.ts';

/**
 * The sweeper: the database decides what still has to happen (docs/decisions/0019-sweeper.md).
 *
 * Every published outbox event that some queue has not acknowledged after a grace period is
 * re-published to that queue by the same job id (the event id), unless a live job (waiting,
 * delayed, active) still carries it; a job BullMQ kept as completed is acknowledged, one kept as
 * failed is removed first (or given up, when the event's module says what giving up means). Modules
 * add the effects they know are missing (an export left `running`, a Stripe event never processed)
 * as events to deliver again. Redis may lose everything: the next run re-drives what it held.
 */

export const SWEEP_QUEUE = 'maintenance';
export const SWEEP_SCHEDULER_ID = 'outbox-sweeper';
/** Where the sweeper leaves the time of its last run and how many jobs it re-drove. */
export const sweeperRunKey = (prefix: string) => `${prefix}:health:sweeper`;
export const DEFAULT_SWEEP_EVERY_MS = 60_000;
export const DEFAULT_SWEEP_GRACE_MS = 5 * 60_000;
const BATCH = 500;

export interface SweepContext {
  em: Em;
  log: Logger;
  graceMs: number;
  files: FileStore;
  /** Network work (the file store) runs after the sweep's transaction commits; outside one, at once. */
  afterCommit(work: () => Promise<unknown>): Promise<void>;
}

/** Work a module finds missing: an event to deliver (again). */
export type MissingWork = { [N in RoutedEvent]: { name: N; payload: EventPayload<N> } }[RoutedEvent];

/** A module's part of a sweep: its own repairs (and clean-up), and the events whose effect is missing. */
export type SweepSource = (ctx: SweepContext) => Promise<MissingWork[]>;

/**
 * What a failed-for-good job of this event means to its module (e.g. the export is marked failed):
 * the event is then acknowledged instead of re-driven.
 */
export type GiveUp = (ctx: SweepContext, event: DomainEvent, reason: string) => Promise<void>;
export type GiveUps = Partial<Record<EventName, GiveUp>>;

export interface SweepReport {
  skipped: boolean;
  redriven: number;
  acknowledged: number;
  givenUp: number;
  live: number;
  recorded: number;
}

export interface SweeperOptions {
  graceMs?: number;
  files: FileStore;
  sources?: SweepSource[];
  giveUps?: GiveUps;
  /** Where each run is recorded (`sweeperRunKey`): the Redis the queues use, and their prefix. */
  runs?: { redis: Redis; prefix: string };
}

export class Sweeper {
  readonly #orm: Orm;
  readonly queues: Queues;
  readonly #log: Logger;
  readonly graceMs: number;
  readonly #files: FileStore;
  readonly #sources: SweepSource[];
  readonly giveUps: GiveUps;
  readonly #runs: SweeperOptions['runs'];

  constructor(orm: Orm, queues: Queues, log: Logger, options: SweeperOptions) {
    this.#orm = orm;
    this.queues = queues;
    this.#log = log;
    this.graceMs = options.graceMs ?? DEFAULT_SWEEP_GRACE_MS;
    this.#files = options.files;
    this.#sources = options.sources ?? [];
    this.giveUps = options.giveUps ?? {};
    this.#runs = options.runs;
  }

  context(em: Em, later?: (() => Promise<unknown>)[]): SweepContext {
    return {
      em,
      log: this.#log,
      graceMs: this.graceMs,
      files: this.#files,
      afterCommit: async (work) => {
        if (later) later.push(work);
        else await work();
      },
    };
  }

  /**
   * One sweep; a second one started meanwhile (another worker) returns `skipped` at once. No network
   * call runs inside a database transaction: the modules' repairs and the events they record commit
   * first, in one short transaction under the sweep's lock; the queues (Redis) are asked afterwards,
   * each acknowledgement or give-up a statement or transaction of its own.
   */
  async run(): Promise<SweepReport> {
    const report: SweepReport = { skipped: false, redriven: 0, acknowledged: 0, givenUp: 0, live: 0, recorded: 0 };
    const em = this.#orm.em.fork() as Em;
    const later: (() => Promise<unknown>)[] = [];
    const again = new Set<string>();
    const locked = await em.transactional(async (txEm) => {
      const tx = txEm as Em;
      // SQL as text: an advisory lock, which no query builder says.
      const [lock] = await tx.execute<{ locked: boolean }[]>(
        "select pg_try_advisory_xact_lock(hashtext('outbox-sweeper')) as locked",
      );
      if (!lock?.locked) return false;
      const ctx = this.context(tx, later);
      for (const source of this.#sources) {
        for (const work of await source(ctx)) report.recorded += await this.#ensureEvent(tx, work, again);
      }
      return true;
    });
    if (!locked) {
      report.skipped = true;
      return report;
    }
    // A sweep started by another worker between the commit above and here may ask the queues about
    // the same events: each step below is idempotent (BullMQ ignores a second add under a job id it
    // keeps; acknowledging twice changes nothing; a give-up marks what is already marked).
    const db = this.#orm.em.fork() as Em;
    const ctx = this.context(db);
    const rows = (await kysely(db)
      .selectFrom('outbox_events')
      .select(['id', 'name', 'payload', 'occurred_at', 'request_id', 'trace', 'handled_queues'])
      .where('handled_at', 'is', null)
      .where('published_at', '<', millisecondsAgo(this.graceMs))
      .orderBy('published_at')
      .limit(BATCH)
      .execute()) as (OutboxRow & { handled_queues: string[] })[];
    for (const row of rows) {
      const routes: readonly QueueName[] = eventRoutes[row.name as EventName] ?? [];
      for (const queue of routes) {
        if (row.handled_queues.includes(queue)) continue;
        const outcome = await this.#redrive(ctx, queue, row, again.has(row.id));
        report[outcome]++;
      }
    }
    for (const work of later) {
      await work().catch((error) => this.#log.warn('sweeper clean-up failed', { error: String(error) }));
    }
    if (report.recorded) nudgeRelay();
    if (report.redriven || report.givenUp || report.recorded) this.#log.warn('sweeper re-drove missing work', { ...report });
    if (!report.skipped) await this.#recordRun(report);
    return report;
  }

  /** When the last sweep ran and what it re-drove, for metrics and the operations view (best effort). */
  async #recordRun(report: SweepReport) {
    if (!this.#runs) return;
    try {
      await this.#runs.redis.set(
        sweeperRunKey(this.#runs.prefix),
        JSON.stringify({ at: Date.now(), redriven: report.redriven + report.recorded }),
      );
    } catch {
      // Redis is down: the next sweep records it.
    }
  }

  /**
   * The outbox event carrying `work`: the latest with this name and payload is made pending again
   * (the sweep below re-drives it), or a new one is recorded for the relay. Returns 1 when recorded.
   */
  async #ensureEvent(tx: Em, work: MissingWork, again: Set<string>): Promise<number> {
    const event = await kysely(tx)
      .selectFrom('outbox_events')
      .select(['id', 'handled_at'])
      .where('name', '=', work.name)
      .where('payload', '=', jsonb(work.payload))
      .orderBy('occurred_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!event) {
      recordEvent(tx, work.name, work.payload as never);
      await tx.flush();
      return 1;
    }
    if (event.handled_at) {
      await kysely(tx)
        .updateTable('outbox_events')
        .set((eb) => ({
          handled_at: null,
          handled_queues: [],
          published_at: eb.fn('least', ['published_at', millisecondsAgo(this.graceMs)]),
        }))
        .where('id', '=', event.id)
        .execute();
      again.add(event.id);
    }
    return 0;
  }

  async #redrive(
    ctx: SweepContext,
    queueName: QueueName,
    row: OutboxRow,
    again: boolean,
  ): Promise<'redriven' | 'acknowledged' | 'givenUp' | 'live'> {
    const queue = this.queues[queueName];
    const job: Job | undefined = await queue.getJob(row.id);
    if (job) {
      const state = await job.getState();
      if (state === 'completed' && !again) {
        // The handler finished; only its acknowledgement was lost.
        await acknowledgeEvent(ctx.em, row.id, queueName);
        return 'acknowledged';
      }
      const giveUp = this.giveUps[row.name as EventName];
      if (state === 'failed' && giveUp) {
        // What giving up means and its acknowledgement commit together (database work only); the
        // module's network clean-up runs after.
        const reason = job.failedReason ?? '';
        const later: (() => Promise<unknown>)[] = [];
        await ctx.em.transactional(async (tx) => {
          await giveUp(this.context(tx as Em, later), parseEvent(jobOf(row).data as never), reason);
          await acknowledgeEvent(tx as Em, row.id, queueName);
        });
        for (const work of later) {
          await work().catch((error) => this.#log.warn('sweeper clean-up failed', { error: String(error) }));
        }
        return 'givenUp';
      }
      if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return 'live';
      // Failed for good (its retry budget spent), or handled while its module says the effect is
      // missing: BullMQ would ignore an add under a job id it still keeps, so the old job goes first.
      await job.remove();
    }
    const next = jobOf(row);
    await queue.add(next.name, next.data, next.opts);
    ctx.log.warn('sweeper re-published an event', { queue: queueName, event: row.name, id: row.id, requestId: row.request_id });
    return 'redriven';
  }
}

export interface SweeperHandle {
  worker: Worker;
  queue: Queue;
  /** Runs a sweep now, in this process (tests, operators). */
  runOnce(): Promise<SweepReport>;
  close(): Promise<void>;
}

/**
 * Runs the sweeper as a BullMQ job scheduler entry (`every` ms) on the maintenance queue, one job at a
 * time per worker and one sweep at a time across workers (an advisory lock). The entry is registered
 * again every interval, so a Redis that lost it (FLUSHALL, a fresh instance) gets it back.
 */
export function startSweeper(
  connection: Redis,
  sweeper: Sweeper,
  log: Logger,
  options: { prefix?: string; everyMs?: number } = {},
): SweeperHandle {
  const prefix = options.prefix ?? 'shop';
  const everyMs = options.everyMs ?? DEFAULT_SWEEP_EVERY_MS;
  const queue = new Queue(SWEEP_QUEUE, { connection, prefix, defaultJobOptions: { removeOnComplete: 100, removeOnFail: 100 } });
  queue.on('error', () => undefined);
  const worker = new Worker(SWEEP_QUEUE, async () => sweeper.run(), { connection, prefix, concurrency: 1 });
  worker.on('error', (error) =>
    reportRedisError(connection, error, (e) => log.warn('sweeper worker error', { error: e.message })),
  );
  worker.on('failed', (_job, error) => log.warn('sweep failed', { error: error.message }));
  let registering = false;
  const register = async () => {
    if (registering) return;
    registering = true;
    try {
      await queue.upsertJobScheduler(SWEEP_SCHEDULER_ID, { every: everyMs }, { name: 'sweep', data: {} });
    } catch (error) {
      log.warn('could not schedule the sweeper', { error: String(error) });
    } finally {
      registering = false;
    }
  };
  void register();
  const timer = setInterval(() => void register(), everyMs);
  timer.unref();
  return {
    worker,
    queue,
    runOnce: () => sweeper.run(),
    async close() {
      clearInterval(timer);
      await worker.close();
      await queue.close();
    },
  };
}
