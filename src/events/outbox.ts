import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import type { Em } from '../db/orm.ts';
import { type EventName, type EventPayload, eventPayloads } from './contracts.ts';
import { OutboxEvent } from './outbox-event.entity.ts';

type Listener = () => void;
const listeners = new Set<Listener>();

/**
 * Records a domain event in the outbox. Call it inside the transaction that makes the change
 * (`em.transactional`): the row commits or rolls back with it, so no event is lost or invented.
 */
export function recordEvent<N extends EventName>(em: Em, name: N, payload: EventPayload<N>): OutboxEvent {
  const checked = v.parse(eventPayloads[name], payload) as Record<string, unknown>;
  const event = em.create(OutboxEvent, {
    id: randomUUID(),
    name,
    payload: checked,
    occurredAt: new Date(),
    publishedAt: null,
    attempts: 0,
  });
  return event;
}

/** Tells this process's relay that a commit just added events, so it publishes without waiting. */
export function nudgeRelay(): void {
  for (const listener of listeners) listener();
}

export function onOutboxWrite(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Runs `work` in one transaction on a fork of `em` and nudges the relay after the commit.
 * Use it for every change that records events.
 */
export async function transact<T>(em: Em, work: (tx: Em) => Promise<T>): Promise<T> {
  const result = await em.fork().transactional(async (tx) => work(tx as Em));
  nudgeRelay();
  return result;
}
