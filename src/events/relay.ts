import { sql } from 'kysely';
import { db, now } from '../db/kysely.ts';
import type { Orm } from '../db/orm.ts';
import type { Logger } from '../lib/logger.ts';
import { type EventName, eventRoutes, type QueueName } from './contracts.ts';
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

export interface JobOrigin {
  requestId?: string;
  trace?: { sentryTrace?: string; baggage?: string };
}

const BATCH = 100;
// Every event has a consumer today; one routed nowhere later is marked published without a job.
const UNROUTED = (Object.keys(eventRoutes) as EventName[]).filter(
  (name) => (eventRoutes[name] as readonly QueueName[]).length === 0,
);

/** BullMQ drops a second add under the same job id. */
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

const CLAIM_SECONDS = 30;

/** Claims with FOR UPDATE SKIP LOCKED so relays share the work; Redis is called outside any transaction, a crash republishes the same job ids. */
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

  /** Rows are marked published only once a replica holds the jobs, so a failover loses none the outbox forgot. */
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
        while ((await this.publishPending()) === BATCH) {}
        if (this.#failing) this.#log.info('outbox relay recovered');
        this.#failing = false;
      } catch (error) {
        if (!this.#failing) this.#log.warn('outbox relay cannot publish yet; rows wait in the outbox', { error: String(error) });
        this.#failing = true;
        return;
      }
    } while (this.#again && !this.#stopped);
  }

  async publishPending(): Promise<number> {
    const outbox = db(this.#orm.em.fork());
    const claimed: OutboxRow[] = (await outbox
      .updateTable('outbox_events')
      .set({ claimed_until: sql`now() + make_interval(secs => ${CLAIM_SECONDS})` })
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('outbox_events')
          .select('id')
          .where('published_at', 'is', null)
          .where((w) => w.or([w('claimed_until', 'is', null), w('claimed_until', '<', now())]))
          .orderBy('occurred_at')
          .limit(BATCH)
          .forUpdate()
          .skipLocked(),
      )
      .returning(['id', 'name', 'payload', 'occurred_at', 'request_id', 'trace'])
      .execute()) as OutboxRow[];
    if (claimed.length === 0) return 0;
    const rows = claimed.sort((a, b) => new Date(a.occurred_at).getTime() - new Date(b.occurred_at).getTime());
    const ids = rows.map((r) => r.id);
    try {
      for (const row of rows) {
        const job = jobOf(row);
        for (const queue of eventRoutes[row.name as EventName] ?? []) {
          await this.#queues[queue].add(job.name, job.data, job.opts);
        }
      }
      if (this.#replicated && !(await this.#replicated())) throw new Error('no Redis replica has acknowledged the new jobs yet');
    } catch (error) {
      // Back to the next pass (this relay's or another's) at once, not after the claim lapses.
      await outbox
        .updateTable('outbox_events')
        .set({ claimed_until: null })
        .where('id', 'in', ids)
        .where('published_at', 'is', null)
        .execute()
        .catch(() => undefined);
      throw error;
    }
    // An event no queue carries is handled once published; the others wait for their queues' acknowledgements.
    await outbox
      .updateTable('outbox_events')
      .set((eb) => ({
        published_at: now(),
        attempts: eb('attempts', '+', 1),
        claimed_until: null,
        handled_at: eb
          .case()
          .when('name', 'in', UNROUTED.length ? UNROUTED : [''])
          .then(now())
          .else(eb.ref('handled_at'))
          .end(),
      }))
      .where('id', 'in', ids)
      .execute();
    return rows.length;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
  }
}
