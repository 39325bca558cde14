import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import * as v from 'valibot';
import { db, now } from '../db/kysely.ts';
import type { Em } from '../db/orm.ts';
import { currentRequest } from '../lib/request-context.ts';
import { type EventName, type EventPayload, eventPayloads, eventRoutes, type QueueName } from './contracts.ts';
import { OutboxEvent } from './outbox-event.entity.ts';

type Listener = () => void;
const listeners = new Set<Listener>();

/** Inside the transaction that makes the change, so no event is lost or invented. */
export function recordEvent<N extends EventName>(em: Em, name: N, payload: EventPayload<N>): OutboxEvent {
  const checked = v.parse(eventPayloads[name], payload) as Record<string, unknown>;
  const context = currentRequest();
  const event = em.create(OutboxEvent, {
    id: randomUUID(),
    name,
    payload: checked,
    occurredAt: new Date(),
    publishedAt: null,
    attempts: 0,
    handledAt: null,
    handledQueues: [],
    requestId: context?.requestId ?? null,
    trace: context?.trace?.sentryTrace ? context.trace : null,
  });
  return event;
}

export function nudgeRelay(): void {
  for (const listener of listeners) listener();
}

export function onOutboxWrite(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export async function transact<T>(em: Em, work: (tx: Em) => Promise<T>): Promise<T> {
  const result = await em.fork().transactional(async (tx) => work(tx as Em));
  nudgeRelay();
  return result;
}

/** Once every queue the event routes to has done so, the sweeper leaves it alone. */
export async function acknowledgeEvent(em: Em, eventId: string, queue: QueueName): Promise<boolean> {
  if (!UUID.test(eventId)) return false;
  const row = await db(em)
    .updateTable('outbox_events')
    .set((eb) => ({ handled_queues: eb.fn<string[]>('array_append', ['handled_queues', eb.cast(eb.val(queue), 'text')]) }))
    .where('id', '=', eventId)
    .where((eb) => eb.not(eb(eb.cast(eb.val(queue), 'text'), '=', eb.fn.any('handled_queues'))))
    .returning(['name', 'handled_queues'])
    .executeTakeFirst();
  if (!row) return false;
  const routes: readonly string[] = eventRoutes[row.name as EventName] ?? [];
  if (routes.every((q) => row.handled_queues.includes(q))) {
    await db(em)
      .updateTable('outbox_events')
      .set({ handled_at: now() })
      .where('id', '=', eventId)
      .where('handled_at', 'is', null)
      .execute();
  }
  return true;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function outboxFigures(em: Em): Promise<{ backlog: number; oldestAgeSeconds: number }> {
  const row = await db(em)
    .selectFrom('outbox_events')
    .select((eb) => [
      eb.cast<number>(eb.fn.countAll(), 'integer').as('backlog'),
      sql<number | null>`extract(epoch from now() - ${eb.fn.min('occurred_at')})::float8`.as('age'),
    ])
    .where('published_at', 'is', null)
    .executeTakeFirst();
  return { backlog: row?.backlog ?? 0, oldestAgeSeconds: Math.max(0, Math.round(row?.age ?? 0)) };
}
