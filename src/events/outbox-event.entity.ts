import { defineEntity, p } from '@mikro-orm/core';

/** A domain event waiting to be (or already) relayed to BullMQ: the transactional outbox. */
export const OutboxEventSchema = defineEntity({
  name: 'OutboxEvent',
  tableName: 'outbox_events',
  properties: {
    id: p.uuid().primary(),
    name: p.string().length(64),
    payload: p.json<Record<string, unknown>>(),
    occurredAt: p.datetime().fieldName('occurred_at'),
    publishedAt: p.datetime().fieldName('published_at').nullable(),
    attempts: p.integer().default(0),
  },
  indexes: [{ name: 'outbox_events_unpublished_index', properties: ['occurredAt'], where: { publishedAt: null } }],
});
export class OutboxEvent extends OutboxEventSchema.class {}
OutboxEventSchema.setClass(OutboxEvent);
