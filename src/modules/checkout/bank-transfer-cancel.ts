import type Stripe from 'stripe';
import type { Em } from '../../db/orm.ts';
import type { Logger } from '../../lib/logger.ts';
import { CheckoutSession } from './entities/checkout-session.entity.ts';

/**
 * A bank transfer lapsed by our deadline: its payment intent is cancelled at Stripe, so money sent
 * later stays in the customer's balance (Stripe's to refund) instead of paying a lapsed order.
 * Best effort: Stripe may have cancelled it already, and the lapse mail goes either way.
 */
export async function cancelLapsedTransfer(ctx: { em: Em; stripe: Stripe; log: Logger }, checkoutId: string) {
  const checkout = await ctx.em.findOne(CheckoutSession, { id: checkoutId }, { fields: ['id', 'state', 'paymentIntentId'] });
  if (checkout?.state !== 'payment_failed' || !checkout.paymentIntentId) return;
  try {
    const intent = await ctx.stripe.paymentIntents.retrieve(checkout.paymentIntentId);
    if (intent.status === 'requires_action') await ctx.stripe.paymentIntents.cancel(intent.id);
  } catch (error) {
    ctx.log.warn('could not cancel a lapsed bank transfer', { checkoutId, error: String(error) });
  }
}
