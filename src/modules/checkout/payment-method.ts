import type { Em } from '../../db/orm.ts';
import { CheckoutSession, paymentMethodOf } from './entities/checkout-session.entity.ts';

type PaymentMethod = ReturnType<typeof paymentMethodOf>;
const PAYMENT_METHOD_LABEL: Record<PaymentMethod, string> = { card: 'クレジットカード', konbini: 'コンビニ払い' };

/**
 * How a checkout was paid, from our own record (no call to Stripe): a konbini payment is the one that
 * waited with a voucher (its deadline is kept after payment); every other completed checkout was paid
 * by card, the only other method the shop offers. Null when there is no such checkout.
 */
export async function paymentOfCheckout(em: Em, checkoutId: string) {
  const checkout = await em.findOne(CheckoutSession, { id: checkoutId }, { fields: ['id', 'konbiniExpiresAt', 'createdAt'] });
  if (!checkout) return null;
  const method = paymentMethodOf(checkout);
  return {
    method,
    label: PAYMENT_METHOD_LABEL[method],
    ordered_at: checkout.createdAt.toISOString(),
    konbini_expires_at: checkout.konbiniExpiresAt?.toISOString() ?? null,
  };
}
