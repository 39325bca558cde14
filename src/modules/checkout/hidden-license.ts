import type Stripe from 'stripe';
import { db as kysely, now } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import type { Logger } from '../../lib/logger.ts';

/**
 * A licence hidden (非公開) while members stood on its payment page: those Checkout Sessions are
 * expired at Stripe (`checkout.sessions.expire`), so nobody pays for what is no longer sold. A
 * payment that arrives anyway (a session created in the same instant, a konbini voucher already
 * issued) is flagged, not made a sale (HIDDEN_LICENSE_FLAG in paid-guard.ts,
 * docs/decisions/0029-asvs-hardening.md).
 */
export async function expireCheckoutsOfHiddenLicense(
  ctx: { em: Em; stripe: Stripe; log: Logger },
  licenseId: number,
): Promise<'done' | 'skipped'> {
  const open = await kysely(ctx.em)
    .selectFrom('checkout_sessions')
    .select(['id', 'stripe_session_id'])
    .where('license_id', '=', licenseId)
    .where('state', '=', 'open')
    .where('stripe_session_id', 'is not', null)
    .$narrowType<{ stripe_session_id: string }>()
    .execute();
  for (const row of open) {
    try {
      await ctx.stripe.checkout.sessions.expire(row.stripe_session_id);
    } catch (error) {
      // Completed or expired meanwhile: its own webhook tells what happened. Anything else is retried.
      if ((error as { type?: string }).type !== 'StripeInvalidRequestError') throw error;
      ctx.log.info('checkout session of a hidden licence was no longer open', {
        licenseId,
        stripeSessionId: row.stripe_session_id,
      });
      continue;
    }
    await kysely(ctx.em)
      .updateTable('checkout_sessions')
      .set({ state: 'expired', updated_at: now() })
      .where('id', '=', row.id)
      .where('state', '=', 'open')
      .execute();
    ctx.log.info('checkout session of a hidden licence expired', { licenseId, stripeSessionId: row.stripe_session_id });
  }
  return open.length ? 'done' : 'skipped';
}
