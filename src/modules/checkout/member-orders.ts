import type { FilterQuery } from '@mikro-orm/core';
import type { Em, Orm } from '../../db/orm.ts';
import { licenseNames } from '../licenses/index.ts';
import { bankTransferView } from './bank-transfer.ts';
import { CheckoutSession } from './entities/checkout-session.entity.ts';
import { voucherView } from './konbini.ts';
import { REFUND_FLAGS } from './paid-guard.ts';
import { methodOf, PAYMENT_METHOD_LABEL } from './payment-method.ts';

type MemberOrderState = 'paid' | 'awaiting_payment' | 'expired' | 'refund_due' | 'refunded';
const STATE_LABEL: Record<MemberOrderState, string> = {
  paid: 'お支払い済み',
  awaiting_payment: 'お支払い待ち',
  expired: '期限切れ（お支払いはありません）',
  // Paid, but for a licence held already, full or hidden: shown to the member, not made a sale.
  refund_due: 'お支払い済み・返金予定（購入済み・満席などのため）',
  refunded: 'お支払い済み・返金済み（購入済み・満席などのため）',
};
const AWAITING_LABEL = { konbini: 'お支払い待ち', bank_transfer: 'お振込待ち', card: 'お支払い待ち' } as const;

/** An order is a paid checkout (a sale, or a payment kept for a refund), or one that waited for a konbini payment or a bank transfer (paid or not). */
const WAITED = ['awaiting_payment', 'payment_failed', 'expired'];
const ORDER_FILTER: FilterQuery<CheckoutSession> = {
  $or: [
    { state: 'complete' },
    { konbiniExpiresAt: { $ne: null }, state: { $in: WAITED } },
    { bankTransferExpiresAt: { $ne: null }, state: { $in: WAITED } },
    { state: 'flagged', $or: REFUND_FLAGS.map((flag) => ({ flagReason: { $like: `${flag}%` } })) },
  ],
};

function orderView(checkout: CheckoutSession, licenseName: string) {
  const method = methodOf(checkout);
  const deadline = checkout.konbiniExpiresAt ?? checkout.bankTransferExpiresAt ?? null;
  const state: MemberOrderState =
    checkout.state === 'flagged'
      ? checkout.refundedAt
        ? 'refunded'
        : 'refund_due'
      : checkout.state === 'complete'
        ? 'paid'
        : checkout.state === 'awaiting_payment' && (deadline?.getTime() ?? 0) > Date.now()
          ? 'awaiting_payment'
          : 'expired';
  const pending = state === 'awaiting_payment';
  return {
    checkout_id: checkout.id,
    order_number: checkout.orderNumber ?? null,
    license_id: checkout.licenseId,
    license_name: licenseName,
    amount: checkout.amount,
    currency: checkout.currency,
    ordered_at: checkout.createdAt.toISOString(),
    payment_method: method,
    payment_method_label: PAYMENT_METHOD_LABEL[method],
    state,
    state_label: pending ? AWAITING_LABEL[method] : STATE_LABEL[state],
    expires_at: deadline?.toISOString() ?? null,
    voucher: pending ? voucherView(checkout) : null,
    bank_transfer: pending ? bankTransferView(checkout) : null,
  };
}
export type MemberOrder = ReturnType<typeof orderView>;

/** A member's orders (checkout module's part of the history), newest order first. */
export async function memberOrdersOf(orm: Orm, userId: string): Promise<MemberOrder[]> {
  const em = orm.em.fork() as Em;
  const checkouts = await em.find(
    CheckoutSession,
    { $and: [{ userId }, ORDER_FILTER] },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  const names = await licenseNames(em, [...new Set(checkouts.map((c) => c.licenseId))]);
  return checkouts.map((checkout) => orderView(checkout, names.get(checkout.licenseId) ?? ''));
}

/** One of a member's orders by its number (null: none of theirs). */
export async function memberOrderOf(orm: Orm, userId: string, orderNumber: string): Promise<MemberOrder | null> {
  const em = orm.em.fork() as Em;
  const checkout = await em.findOne(CheckoutSession, { $and: [{ userId, orderNumber }, ORDER_FILTER] });
  if (!checkout) return null;
  const names = await licenseNames(em, [checkout.licenseId]);
  return orderView(checkout, names.get(checkout.licenseId) ?? '');
}

/**
 * What a 御請求書 prints from its order: when it was ordered and the transfer account, whatever the
 * order's state now (an administrator draws an issued invoice again after the transfer too). Null: no
 * such order.
 */
export async function invoiceOrderFacts(orm: Orm, orderNumber: string) {
  const checkout = await (orm.em.fork() as Em).findOne(CheckoutSession, { orderNumber });
  if (!checkout) return null;
  return { orderedAt: checkout.createdAt, bank: bankTransferView(checkout) };
}
