import { defineEntity, p } from '@mikro-orm/core';

/** A domain event waiting to be (or already) relayed to BullMQ: the transactional outbox. */
const OutboxEventSchema = defineEntity({
  name: 'OutboxEvent',
  tableName: 'outbox_events',
  properties: {
    id: p.uuid().primary(),
    name: p.string().length(64),
    payload: p.json<Record<string, unknown>>(),
    occurredAt: p.datetime().fieldName('occurred_at'),
    publishedAt: p.datetime().fieldName('published_at').nullable(),
    /** A relay publishing the row holds it until then (src/events/relay.ts): Redis is called outside any transaction. */
    claimedUntil: p.datetime().fieldName('claimed_until').nullable(),
    attempts: p.integer().default(0),
    /** When every queue the event routes to acknowledged it (see handledQueues); the sweeper re-drives the rest. */
    handledAt: p.datetime().fieldName('handled_at').nullable(),
    handledQueues: p.array<string>().fieldName('handled_queues').default([]),
    /** The request (or job) that recorded the event: its id and Sentry trace go with the jobs it causes. */
    requestId: p.string().length(64).fieldName('request_id').nullable(),
    trace: p.json<{ sentryTrace?: string; baggage?: string }>().nullable(),
  },
  indexes: [
    { name: 'outbox_events_unpublished_index', properties: ['occurredAt'], where: { publishedAt: null } },
    { name: 'outbox_events_unhandled_index', properties: ['publishedAt'], where: { handledAt: null } },
  ],
});
export class OutboxEvent extends OutboxEventSchema.class {}
OutboxEventSchema.setClass(OutboxEvent);
