import type { Em } from '../../db/orm.ts';
import { CheckoutSession } from './entities/checkout-session.entity.ts';

type PaymentMethod = 'card' | 'konbini' | 'bank_transfer';
export const PAYMENT_METHOD_LABEL: Record<PaymentMethod, string> = {
  card: 'クレジットカード',
  konbini: 'コンビニ払い',
  bank_transfer: '銀行振込',
};

/** A konbini payment waited with a voucher, a bank transfer with a virtual account; any other was by card. */
export const methodOf = (checkout: { konbiniExpiresAt?: unknown; bankTransferExpiresAt?: unknown }): PaymentMethod =>
  checkout.konbiniExpiresAt ? 'konbini' : checkout.bankTransferExpiresAt ? 'bank_transfer' : 'card';

/**
 * How a checkout was paid, from our own record (no call to Stripe): a konbini payment is the one that
 * waited with a voucher, a bank transfer with a virtual account (their deadlines are kept after
 * payment); every other completed checkout was paid by card. Null when there is no such checkout.
 */
export async function paymentOfCheckout(em: Em, checkoutId: string) {
  const checkout = await em.findOne(
    CheckoutSession,
    { id: checkoutId },
    { fields: ['id', 'konbiniExpiresAt', 'bankTransferExpiresAt', 'createdAt'] },
  );
  if (!checkout) return null;
  const method = methodOf(checkout);
  return {
    method,
    label: PAYMENT_METHOD_LABEL[method],
    ordered_at: checkout.createdAt.toISOString(),
    konbini_expires_at: checkout.konbiniExpiresAt?.toISOString() ?? null,
  };
}
