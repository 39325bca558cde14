import type Stripe from 'stripe';
import type { Em } from '../../db/orm.ts';
import { currentBuyers } from '../accounts/index.ts';
import { CheckoutSession } from './entities/checkout-session.entity.ts';
import { flaggedRefundView } from './flagged-refund-record.ts';

/** Who paid and how much, on a payments-inbox row: from our Checkout Session (this module's own table). */
export interface InboxPayment {
  amount: number;
  currency: string;
  /** The member now (accounts module); null when the account has since been deleted. */
  buyer: { user_id: string; name: string; email: string } | null;
  buyer_deleted: boolean;
  refund: ReturnType<typeof flaggedRefundView>;
}

/**
 * The amount and buyer of each Checkout Session of an inbox page, keyed by Stripe's session id: one
 * query of checkout_sessions and one batched call to the accounts module per page — the inbox reads
 * neither the sales nor the users table.
 */
export async function inboxPayments(em: Em, stripeSessionIds: readonly string[]): Promise<Map<string, InboxPayment>> {
  if (stripeSessionIds.length === 0) return new Map();
  const checkouts = await em.find(CheckoutSession, { stripeSessionId: { $in: [...stripeSessionIds] } });
  const buyers = await currentBuyers(em, [...new Set(checkouts.flatMap((c) => (c.userId ? [c.userId] : [])))]);
  const payments = new Map<string, InboxPayment>();
  for (const checkout of checkouts) {
    const buyer = checkout.userId ? buyers.get(checkout.userId) : undefined;
    payments.set(checkout.stripeSessionId as string, {
      amount: checkout.amount,
      currency: checkout.currency,
      buyer: buyer ? { user_id: buyer.id, name: `${buyer.lastName} ${buyer.firstName}`, email: buyer.email } : null,
      buyer_deleted: !buyer,
      refund: flaggedRefundView(checkout),
    });
  }
  return payments;
}

/** Stripe's own amount on a Checkout Session event (for a session this shop has no record of). */
export function payloadAmount(payload: Stripe.Event): { amount: number; currency: string } | null {
  const object = payload.data.object;
  if (object.object !== 'checkout.session' || typeof object.amount_total !== 'number') return null;
  return { amount: object.amount_total, currency: object.currency ?? 'jpy' };
}
