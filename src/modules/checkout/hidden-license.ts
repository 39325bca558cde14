import type Stripe from 'stripe';
import type { Em } from '../../db/orm.ts';
import type { Logger } from '../../lib/logger.ts';

/**
 * A licence hidden (非公開) while members stood on its payment page: those Checkout Sessions are
 * expired at Stripe (`checkout.sessions.expire`), so nobody pays for what is no longer sold. A
 * payment that arrives anyway (a session created in the same instant, a konbini voucher already
 * issued) is flagged, not made a sale: `reconcile` in service.ts, docs/decisions/0029-asvs-hardening.md.
 */
export const HIDDEN_LICENSE_FLAG = '非公開のライセンスへの支払い';

export async function expireCheckoutsOfHiddenLicense(
  ctx: { em: Em; stripe: Stripe; log: Logger },
  licenseId: number,
): Promise<'done' | 'skipped'> {
  const open = await ctx.em.execute<{ id: string; stripe_session_id: string }[]>(
    `select id, stripe_session_id from checkout_sessions
      where license_id = ? and state = 'open' and stripe_session_id is not null`,
    [licenseId],
  );
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
    await ctx.em.execute(`update checkout_sessions set state = 'expired', updated_at = now() where id = ? and state = 'open'`, [
      row.id,
    ]);
    ctx.log.info('checkout session of a hidden licence expired', { licenseId, stripeSessionId: row.stripe_session_id });
  }
  return open.length ? 'done' : 'skipped';
}
