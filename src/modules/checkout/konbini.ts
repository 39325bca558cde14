import type Stripe from 'stripe';
import type { Em, Orm } from '../../db/orm.ts';
import type { JobContext, JobResult } from '../../jobs/context.ts';
import { findBuyer } from '../accounts/index.ts';
import { findLicenseForSale } from '../licenses/index.ts';
import { renderMail, sendOnce } from '../mail/index.ts';
import { CheckoutSession, type KonbiniStoreCode } from './entities/checkout-session.entity.ts';

/** The chains of Stripe's konbini voucher, in the order Stripe lists them. */
export const KONBINI_STORES = [
  ['familymart', 'ファミリーマート'],
  ['lawson', 'ローソン'],
  ['ministop', 'ミニストップ'],
  ['seicomart', 'セイコーマート'],
] as const satisfies readonly (readonly [KonbiniStoreCode['store'], string])[];

const STORE_LABEL = Object.fromEntries(KONBINI_STORES) as Record<KonbiniStoreCode['store'], string>;

export type KonbiniVoucher = Pick<CheckoutSession, 'konbiniVoucherUrl' | 'konbiniExpiresAt' | 'konbiniStores'>;

/**
 * The voucher of a konbini payment awaiting the buyer, read from Stripe's payment intent
 * (`next_action.konbini_display_details`); null for anything else (a card, a settled payment).
 */
export function konbiniVoucherOf(pi: Stripe.PaymentIntent): KonbiniVoucher | null {
  const details = pi.next_action?.type === 'konbini_display_details' ? pi.next_action.konbini_display_details : undefined;
  if (!details) return null;
  const stores = KONBINI_STORES.flatMap(([store]) => {
    const code = details.stores[store];
    return code ? [{ store, paymentCode: code.payment_code, confirmationNumber: code.confirmation_number ?? null }] : [];
  });
  return {
    konbiniVoucherUrl: details.hosted_voucher_url ?? null,
    konbiniExpiresAt: new Date(details.expires_at * 1000),
    konbiniStores: stores,
  };
}

/** What the buyer is shown of a voucher (complete page, purchase history): null when there is none. */
export function voucherView(checkout: KonbiniVoucher) {
  if (!checkout.konbiniExpiresAt) return null;
  return {
    url: checkout.konbiniVoucherUrl ?? null,
    expires_at: new Date(checkout.konbiniExpiresAt).toISOString(),
    stores: (checkout.konbiniStores ?? []).map((code) => ({
      store: code.store,
      label: STORE_LABEL[code.store] ?? code.store,
      payment_code: code.paymentCode,
      confirmation_number: code.confirmationNumber,
    })),
  };
}

/** Member-facing state of a konbini order that is not (yet) a sale. */
export type KonbiniOrderState = 'awaiting_payment' | 'expired';
export const KONBINI_ORDER_LABEL: Record<KonbiniOrderState, string> = {
  awaiting_payment: 'お支払い待ち',
  expired: '期限切れ',
};

/**
 * A member's konbini orders that are not sales: awaiting payment (with the voucher) or lapsed
 * unpaid. Paid ones are sales and are listed by the sales module. Newest first.
 */
export async function konbiniOrdersOf(orm: Orm, userId: string) {
  const em = orm.em.fork() as Em;
  const checkouts = await em.find(
    CheckoutSession,
    { userId, konbiniExpiresAt: { $ne: null }, state: { $in: ['awaiting_payment', 'payment_failed'] } },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  const names = new Map<number, string>();
  for (const licenseId of new Set(checkouts.map((c) => c.licenseId))) {
    names.set(licenseId, (await findLicenseForSale(em, licenseId))?.name ?? '');
  }
  const now = Date.now();
  return checkouts.map((checkout) => {
    // Stripe tells us of a lapse a little after the deadline: past it, the voucher is no use either way.
    const lapsed = checkout.state === 'payment_failed' || (checkout.konbiniExpiresAt?.getTime() ?? 0) <= now;
    const state: KonbiniOrderState = lapsed ? 'expired' : 'awaiting_payment';
    return {
      checkout_id: checkout.id,
      license_id: checkout.licenseId,
      license_name: names.get(checkout.licenseId) ?? '',
      amount: checkout.amount,
      currency: checkout.currency,
      ordered_at: checkout.createdAt.toISOString(),
      state,
      state_label: KONBINI_ORDER_LABEL[state],
      voucher: lapsed ? null : voucherView(checkout),
      expires_at: checkout.konbiniExpiresAt?.toISOString() ?? null,
    };
  });
}
export type KonbiniOrder = Awaited<ReturnType<typeof konbiniOrdersOf>>[number];

const jst = new Intl.DateTimeFormat('ja-JP', {
  timeZone: 'Asia/Tokyo',
  year: 'numeric',
  month: 'long',
  day: 'numeric',
  weekday: 'short',
  hour: '2-digit',
  minute: '2-digit',
});
/** 2026年11月25日(水) 23:59 */
export const formatDeadline = (date: Date) => jst.format(date);

/** The buyer gets the payment numbers, the voucher link and the deadline, once per event (`eventId`). */
export async function mailKonbiniVoucher(ctx: JobContext, eventId: string, checkoutId: string): Promise<JobResult> {
  const checkout = await ctx.em.findOne(CheckoutSession, { id: checkoutId });
  const voucher = checkout ? voucherView(checkout) : null;
  if (!checkout?.userId || !voucher || checkout.state !== 'awaiting_payment') return 'skipped';
  const buyer = await findBuyer(ctx.em, checkout.userId);
  if (!buyer) return 'skipped';
  const license = await findLicenseForSale(ctx.em, checkout.licenseId);
  const result = await sendOnce(ctx, `${eventId}:konbini-voucher`, 'konbini-voucher', checkout.userId, {
    to: buyer.email,
    ...renderMail({
      subject: 'コンビニでのお支払い番号のご案内',
      greeting: `${`${buyer.lastName} ${buyer.firstName}`.trim() || 'お客'} 様`,
      paragraphs: [
        'ライセンスのお申し込みありがとうございます。コンビニでのお支払いをお待ちしています。',
        `ライセンス：${license?.name ?? ''}`,
        `金額：¥${checkout.amount.toLocaleString('ja-JP')}（税込）`,
        `お支払い期限：${formatDeadline(new Date(voucher.expires_at))}（日本時間）`,
        ...voucher.stores.map(
          (store) =>
            `${store.label}：お支払い番号 ${store.payment_code}${store.confirmation_number ? `／確認番号 ${store.confirmation_number}` : ''}`,
        ),
        '店頭の端末またはレジでお支払い番号と確認番号をお伝えのうえ、期限までに現金でお支払いください。お支払いを確認しましたら、あらためてメールでお知らせします。',
        '期限を過ぎるとお支払いできなくなります。その場合はお手数ですが、もう一度お手続きください。購入履歴は会員情報のページからご確認いただけます。',
      ],
      ...(voucher.url ? { action: { label: 'お支払い方法（払込票）を表示する', url: voucher.url } } : {}),
      notes: ['このメールは送信専用です。'],
    }),
  });
  return result === 'sent' ? 'done' : 'skipped';
}
