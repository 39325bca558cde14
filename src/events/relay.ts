import type { Orm } from '../db/orm.ts';
import type { Logger } from '../lib/logger.ts';
import { type EventName, eventRoutes } from './contracts.ts';
import { onOutboxWrite } from './outbox.ts';
import type { Queues } from './queues.ts';

export interface OutboxRow {
  id: string;
  name: string;
  payload: Record<string, unknown>;
  occurred_at: Date | string;
  request_id?: string | null;
  trace?: { sentryTrace?: string; baggage?: string } | null;
}

/** What a job carries besides its event: the request that caused it (src/lib/request-context.ts). */
export interface JobOrigin {
  requestId?: string;
  trace?: { sentryTrace?: string; baggage?: string };
}

const BATCH = 100;
const UNROUTED = (Object.keys(eventRoutes) as EventName[]).filter((name) => eventRoutes[name].length === 0);

/** The job a relay or the sweeper adds for an outbox row: the event id is the job id (BullMQ drops a second add). */
export function jobOf(row: OutboxRow): { name: string; data: Record<string, unknown>; opts: { jobId: string } } {
  const occurredAt = new Date(row.occurred_at).toISOString();
  const origin: JobOrigin = {
    ...(row.request_id ? { requestId: row.request_id } : {}),
    ...(row.trace ? { trace: row.trace } : {}),
  };
  return {
    name: row.name,
    data: { id: row.id, name: row.name, occurredAt, payload: row.payload, ...origin },
    opts: { jobId: row.id },
  };
}

/**
 * Publishes committed outbox rows to BullMQ, the event id as job id, then marks them published.
 * Rows are claimed with `FOR UPDATE SKIP LOCKED`, so relays in several processes share the work;
 * a crash between `add` and the update republishes with the same job id, which BullMQ ignores,
 * and consumers are idempotent in the database for the rest.
 */
export class OutboxRelay {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = true;
  #unsubscribe: (() => void) | undefined;
  #failing = false;
  readonly #orm: Orm;
  readonly #queues: Queues;
  readonly #log: Logger;
  readonly #intervalMs: number;
  readonly #replicated: (() => Promise<boolean>) | undefined;

  /**
   * `replicated`, when given, tells whether a Redis replica holds what was just added: rows are marked
   * published only then (else they are added again on the next pass, the same job ids), so a failover
   * loses no job the outbox has forgotten. What slips through anyway is re-driven by the sweeper.
   */
  constructor(orm: Orm, queues: Queues, log: Logger, intervalMs = 1_000, replicated?: () => Promise<boolean>) {
    this.#orm = orm;
    this.#queues = queues;
    this.#log = log;
    this.#intervalMs = intervalMs;
    this.#replicated = replicated;
  }

  start(): void {
    this.#stopped = false;
    this.#unsubscribe = onOutboxWrite(() => this.nudge());
    const tick = () => {
      if (this.#stopped) return;
      this.nudge();
      this.#timer = setTimeout(tick, this.#intervalMs);
      this.#timer.unref();
    };
    tick();
  }

  /** Runs a publishing pass now (or right after the current one). */
  nudge(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#loop().finally(() => {
      this.#running = undefined;
    });
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false;
      try {
        while ((await this.publishPending()) === BATCH) {
          // a full batch: there may be more
        }
        if (this.#failing) this.#log.info('outbox relay recovered');
        this.#failing = false;
      } catch (error) {
        if (!this.#failing) this.#log.warn('outbox relay cannot publish yet; rows wait in the outbox', { error: String(error) });
        this.#failing = true;
        return;
      }
    } while (this.#again && !this.#stopped);
  }

  /** One batch: claim, publish, mark. Returns how many rows were published. */
  async publishPending(): Promise<number> {
    const em = this.#orm.em.fork();
    return em.transactional(async (tx) => {
      const rows = await tx.execute<OutboxRow[]>(
        `select id, name, payload, occurred_at, request_id, trace from outbox_events
         where published_at is null order by occurred_at limit ${BATCH} for update skip locked`,
      );
      if (rows.length === 0) return 0;
      for (const row of rows) {
        const job = jobOf(row);
        for (const queue of eventRoutes[row.name as EventName] ?? []) {
          await this.#queues[queue].add(job.name, job.data, job.opts);
        }
      }
      if (this.#replicated && !(await this.#replicated())) throw new Error('no Redis replica has acknowledged the new jobs yet');
      // An event no queue carries is handled once published; the others wait for their queues' acknowledgements.
      await tx.execute(
        `update outbox_events set published_at = now(), attempts = attempts + 1,
           handled_at = case when name in (?) then now() else handled_at end
         where id in (?)`,
        [UNROUTED.length ? UNROUTED : [''], rows.map((r) => r.id)],
      );
      return rows.length;
    });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
  }
}
