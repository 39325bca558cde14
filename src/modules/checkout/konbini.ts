import type Stripe from 'stripe';
import type { Em } from '../../db/orm.ts';
import type { JobContext, JobResult } from '../../jobs/context.ts';
import { japanDeadline } from '../../lib/japan-time.ts';
import { orderMailLines } from '../../lib/order-page.ts';
import { yen } from '../../lib/yen.ts';
import { findBuyer } from '../accounts/index.ts';
import { findLicenseForSale } from '../licenses/index.ts';
import { renderMail, sendOnce } from '../mail/index.ts';
import { CheckoutSession, type KonbiniStoreCode } from './entities/checkout-session.entity.ts';
import { dueReminders } from './payment-reminders.ts';

const KONBINI_STORES = [
  ['familymart', 'ファミリーマート'],
  ['lawson', 'ローソン'],
  ['ministop', 'ミニストップ'],
  ['seicomart', 'セイコーマート'],
] as const satisfies readonly (readonly [KonbiniStoreCode['store'], string])[];

const STORE_LABEL = Object.fromEntries(KONBINI_STORES) as Record<KonbiniStoreCode['store'], string>;

export type KonbiniVoucher = Pick<CheckoutSession, 'konbiniVoucherUrl' | 'konbiniExpiresAt' | 'konbiniStores'>;

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

export async function mailKonbiniVoucher(ctx: JobContext, eventId: string, checkoutId: string): Promise<JobResult> {
  const checkout = await ctx.em.findOne(CheckoutSession, { id: checkoutId });
  const voucher = checkout ? voucherView(checkout) : null;
  if (!checkout?.userId || !voucher || checkout.state !== 'awaiting_payment') return 'skipped';
  const buyer = await findBuyer(ctx.em, checkout.userId);
  if (!buyer) return 'skipped';
  const license = await findLicenseForSale(ctx.em, checkout.licenseId);
  const result = await sendOnce(
    ctx,
    `${eventId}:konbini-voucher`,
    'konbini-voucher',
    checkout.userId,
    {
      to: buyer.email,
      ...renderMail({
        subject: 'コンビニでのお支払い番号のご案内',
        greeting: buyerGreeting(buyer),
        paragraphs: [
          'ライセンスのお申し込みありがとうございます。コンビニでのお支払いをお待ちしています。',
          ...orderMailLines(ctx.env.appUrl, checkout),
          ...paymentLines(license?.name ?? '', checkout.amount, voucher),
          '店頭の端末またはレジでお支払い番号と確認番号をお伝えのうえ、期限までに現金でお支払いください。お支払いを確認しましたら、あらためてメールでお知らせします。',
          '期限を過ぎるとお支払いできなくなります。その場合はお手数ですが、もう一度お手続きください。購入履歴は会員情報のページからご確認いただけます。',
        ],
        ...(voucher.url ? { action: { label: 'お支払い方法（払込票）を表示する', url: voucher.url } } : {}),
        notes: ['このメールは送信専用です。'],
      }),
    },
    { about: `checkout:${checkout.id}` },
  );
  return result === 'sent' ? 'done' : 'skipped';
}

const buyerGreeting = (buyer: { lastName: string; firstName: string }) =>
  `${`${buyer.lastName} ${buyer.firstName}`.trim() || 'お客'} 様`;

function paymentLines(
  licenseName: string,
  amount: number,
  voucher: {
    expires_at: number | string;
    stores: { label: string; payment_code: string; confirmation_number?: string | null }[];
  },
): string[] {
  return [
    `ライセンス：${licenseName}`,
    `金額：${yen(amount)}（税込）`,
    `お支払い期限：${japanDeadline(new Date(voucher.expires_at))}（日本時間）`,
    ...voucher.stores.map(
      (store) =>
        `${store.label}：お支払い番号 ${store.payment_code}${store.confirmation_number ? `／確認番号 ${store.confirmation_number}` : ''}`,
    ),
  ];
}

/** The day-before reminders (from 09:00 Japan time), as the sweep records them. */
export const konbiniReminders =
  (clock: () => Date = () => new Date()) =>
  (ctx: { em: Em }) =>
    dueReminders(ctx.em, clock(), 'konbini');

export async function mailKonbiniReminder(ctx: JobContext, eventId: string, checkoutId: string): Promise<JobResult> {
  const checkout = await ctx.em.findOne(CheckoutSession, { id: checkoutId });
  const voucher = checkout ? voucherView(checkout) : null;
  if (!checkout?.userId || !voucher || checkout.state !== 'awaiting_payment') return 'skipped';
  if (new Date(voucher.expires_at).getTime() <= Date.now()) return 'skipped';
  const buyer = await findBuyer(ctx.em, checkout.userId);
  if (!buyer) return 'skipped';
  const license = await findLicenseForSale(ctx.em, checkout.licenseId);
  const result = await sendOnce(
    ctx,
    `${eventId}:konbini-reminder`,
    'konbini-reminder',
    checkout.userId,
    {
      to: buyer.email,
      ...renderMail({
        subject: 'コンビニ払いのお支払い期限が近づいています',
        greeting: buyerGreeting(buyer),
        paragraphs: [
          'お申し込みいただいたライセンスのコンビニ払いのお支払い期限が近づいています。まだお支払いが確認できていませんので、期限までに店頭でお支払いください。',
          ...orderMailLines(ctx.env.appUrl, checkout),
          ...paymentLines(license?.name ?? '', checkout.amount, voucher),
          voucher.url
            ? '期限を過ぎるとお支払いできなくなり、お申し込みは取り消されます。お支払い方法（払込票）は下のボタンからご確認いただけます。'
            : '期限を過ぎるとお支払いできなくなり、お申し込みは取り消されます。',
        ],
        ...(voucher.url ? { action: { label: 'お支払い方法（払込票）を表示する', url: voucher.url } } : {}),
        notes: [
          'すでにお支払いいただいた場合は、このメールと行き違いになっています。ご容赦ください。',
          'このメールは送信専用です。',
        ],
      }),
    },
    { about: `checkout:${checkout.id}` },
  );
  return result === 'sent' ? 'done' : 'skipped';
}

export async function mailKonbiniLapsed(ctx: JobContext, eventId: string, checkoutId: string): Promise<JobResult> {
  const checkout = await ctx.em.findOne(CheckoutSession, { id: checkoutId });
  if (!checkout?.userId || !['payment_failed', 'expired'].includes(checkout.state)) return 'skipped';
  const buyer = await findBuyer(ctx.em, checkout.userId);
  if (!buyer) return 'skipped';
  const license = await findLicenseForSale(ctx.em, checkout.licenseId);
  const result = await sendOnce(
    ctx,
    `${eventId}:konbini-lapsed`,
    'konbini-lapsed',
    checkout.userId,
    {
      to: buyer.email,
      ...renderMail({
        subject: 'コンビニ払いの支払期限切れのお知らせ',
        greeting: buyerGreeting(buyer),
        paragraphs: [
          'お申し込みいただいたライセンスのコンビニ払いは、お支払い期限までにお支払いが確認できなかったため、お申し込みを取り消しました。お支払い番号は使用できなくなりました。',
          ...orderMailLines(ctx.env.appUrl, checkout),
          `ライセンス：${license?.name ?? ''}`,
          `金額：${yen(checkout.amount)}（税込）`,
          ...(checkout.konbiniExpiresAt ? [`お支払い期限：${japanDeadline(checkout.konbiniExpiresAt)}（日本時間）`] : []),
          'ご購入を希望される場合は、お手数ですが下のボタンからもう一度お手続きください。',
        ],
        action: { label: 'ライセンスのページを開く', url: `${ctx.env.appUrl}/licenses/${checkout.licenseId}` },
        notes: ['このメールは送信専用です。'],
      }),
    },
    { about: `checkout:${checkout.id}` },
  );
  return result === 'sent' ? 'done' : 'skipped';
}
