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
 * The database decides what still has to happen: outbox events some queue has not acknowledged after a
 * grace period are re-published by the same job id; Redis may lose everything (docs/decisions/0019-sweeper.md).
 */

const SWEEP_QUEUE = 'maintenance';
const SWEEP_SCHEDULER_ID = 'outbox-sweeper';
export const sweeperRunKey = (prefix: string) => `${prefix}:health:sweeper`;
const DEFAULT_SWEEP_EVERY_MS = 60_000;
const DEFAULT_SWEEP_GRACE_MS = 5 * 60_000;
const BATCH = 500;

export interface SweepContext {
  em: Em;
  log: Logger;
  graceMs: number;
  files: FileStore;
  /** Network work (the file store) runs after the sweep's transaction commits; outside one, at once. */
  afterCommit(work: () => Promise<unknown>): Promise<void>;
}

export type MissingWork = { [N in RoutedEvent]: { name: N; payload: EventPayload<N> } }[RoutedEvent];

export type SweepSource = (ctx: SweepContext) => Promise<MissingWork[]>;

/** Giving up on a failed-for-good job of this event (e.g. the export marked failed) acknowledges it. */
type GiveUp = (ctx: SweepContext, event: DomainEvent, reason: string) => Promise<void>;
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

  /** No network call inside a database transaction: repairs commit first, the queues are asked afterwards. */
  async run(): Promise<SweepReport> {
    const report: SweepReport = { skipped: false, redriven: 0, acknowledged: 0, givenUp: 0, live: 0, recorded: 0 };
    const em = this.#orm.em.fork() as Em;
    const later: (() => Promise<unknown>)[] = [];
    const again = new Set<string>();
    const locked = await em.transactional(async (txEm) => {
      const tx = txEm as Em;
      // SQL as text: an advisory lock.
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
    // Another worker may ask the queues about the same events meanwhile: each step below is idempotent.
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
  runOnce(): Promise<SweepReport>;
  close(): Promise<void>;
}

/** Registered again every interval, so a Redis that lost the scheduler entry gets it back. */
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
