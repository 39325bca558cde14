import { db as kysely, millisecondsAgo } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';

/**
 * The checkout module's part of a sweep (docs/decisions/0019-sweeper.md): a Stripe event in the inbox
 * that was never tried (not processed, no failure recorded) after `graceMs` needs its
 * StripeEventReceived delivered (again): Stripe got its 200, so a sale may be waiting on it.
 * Failed ones retry on their own and stay replayable from the payments inbox.
 */
export async function sweepStripeEvents(ctx: { em: Em; graceMs: number }) {
  const rows = await kysely(ctx.em)
    .selectFrom('stripe_events')
    .select('id')
    .where('processed_at', 'is', null)
    .where('failed_at', 'is', null)
    .where('received_at', '<', millisecondsAgo(ctx.graceMs))
    .orderBy('received_at')
    .limit(100)
    .execute();
  return rows.map((r) => ({ name: 'StripeEventReceived' as const, payload: { eventId: r.id } }));
}
