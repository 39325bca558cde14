import type Stripe from 'stripe';
import { db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import { findLicenseForSale } from '../licenses/index.ts';
import { holdingsOf, saleOfCheckout } from '../sales/index.ts';
import { CheckoutSession } from './entities/checkout-session.entity.ts';
import { lockMemberLicense } from './one-session.ts';
import { seatsTaken } from './service.ts';

/** Flag reasons of payments kept for a refund, not made sales (the inbox and reconciliation say so). */
export const DUPLICATE_PAYMENT_FLAG = '購入済みのライセンスへの重複した支払い';
export const OVER_CAPACITY_FLAG = '満席のライセンスへの支払い';
/** The flag reason of a payment for a licence hidden meanwhile (made no sale; reconciliation names it). */
export const HIDDEN_LICENSE_FLAG = '非公開のライセンスへの支払い';
/** Flags of payments the shop keeps for a refund (an amount mismatch is not one: it is looked into first). */
export const REFUND_FLAGS = [HIDDEN_LICENSE_FLAG, DUPLICATE_PAYMENT_FLAG, OVER_CAPACITY_FLAG] as const;

/** A paid checkout flagged for a refund: no sale, the money still to give back (or given back). */
export const keptForRefund = (checkout: Pick<CheckoutSession, 'state' | 'flagReason'>) =>
  checkout.state === 'flagged' && REFUND_FLAGS.some((flag) => checkout.flagReason?.startsWith(flag));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Before a paid session's checkout row is locked: its licence, then the member's lock, in the order
 * startCheckout takes them, so a payment and a new checkout of the same licence wait for each other
 * instead of deadlocking, and two payments of one member's licence are judged one after the other.
 */
export async function lockPurchaseOf(tx: Em, session: Stripe.Checkout.Session): Promise<void> {
  const checkoutId = String(session.metadata?.checkoutId ?? '');
  const row = await kysely(tx)
    .selectFrom('checkout_sessions')
    .select(['user_id', 'license_id'])
    .where((eb) =>
      eb.or([eb('stripe_session_id', '=', session.id), ...(UUID.test(checkoutId) ? [eb('id', '=', checkoutId)] : [])]),
    )
    .executeTakeFirst();
  if (!row) return;
  await findLicenseForSale(tx, row.license_id, { lock: true });
  if (row.user_id) await lockMemberLicense(tx, row.user_id, row.license_id);
}

/** The member holds the licence already, or another of their checkouts of it is paid and becoming a sale. */
async function heldElsewhere(tx: Em, checkout: CheckoutSession, userId: string): Promise<boolean> {
  const [held] = await holdingsOf(tx, userId, checkout.licenseId);
  if (held) return true;
  const paid = await tx.find(CheckoutSession, {
    userId,
    licenseId: checkout.licenseId,
    state: 'complete',
    id: { $ne: checkout.id },
  });
  for (const other of paid) if (!(await saleOfCheckout(tx, other.id))) return true;
  return false;
}

/**
 * Why a payment arriving for `checkout` must not become a sale, or null. The money is Stripe's to
 * refund: the checkout is flagged with the reason, and the inbox and the nightly reconciliation show it.
 */
export async function paymentRefusal(
  tx: Em,
  checkout: CheckoutSession,
  license: { id: number; capacity: number | null },
): Promise<{ outcome: string; reason: string } | null> {
  const order = checkout.orderNumber ? `、ご注文番号 ${checkout.orderNumber}` : '';
  if (checkout.userId && (await heldElsewhere(tx, checkout, checkout.userId))) {
    return {
      outcome: 'flagged: duplicate payment',
      reason: `${DUPLICATE_PAYMENT_FLAG}（ライセンス #${checkout.licenseId}${order}）`,
    };
  }
  if (license.capacity === null) return null;
  // The member's own open checkouts never pay (a newer one expires them first): not counted against them.
  const taken = await seatsTaken(tx, [license.id], { exceptOpenOf: checkout.userId ?? undefined, exceptCheckout: checkout.id });
  if ((taken.get(license.id) ?? 0) < license.capacity) return null;
  return {
    outcome: 'flagged: over capacity',
    reason: `${OVER_CAPACITY_FLAG}（ライセンス #${checkout.licenseId}、定員 ${license.capacity}${order}）`,
  };
}
