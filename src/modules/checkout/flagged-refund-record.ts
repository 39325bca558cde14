import { db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { EventHandler } from '../../jobs/context.ts';
import { orderMailLines } from '../../lib/order-page.ts';
import { yen } from '../../lib/yen.ts';
import { findBuyer } from '../accounts/index.ts';
import { findLicenseForSale } from '../licenses/index.ts';
import { japanTime, renderMail, sendOnce } from '../mail/index.ts';
import { CheckoutSession } from './entities/checkout-session.entity.ts';
import { closeRunWhenDone } from './finding-acknowledgements.ts';
import { DUPLICATE_PAYMENT_FLAG, keptForRefund, OVER_CAPACITY_FLAG } from './paid-guard.ts';

/** Who resolved a refund made in Stripe's dashboard (no administrator of ours asked for it). */
export const STRIPE_DASHBOARD = 'Stripe（ダッシュボードでの返金）';

/** Records the refund once (false the second time) and marks its open differences 確認済み; the caller holds the lock. */
export async function markFlaggedRefunded(
  tx: Em,
  checkout: CheckoutSession,
  how: { at: Date; by: string; stripeRefundId?: string | null },
): Promise<boolean> {
  if (checkout.refundedAt || !keptForRefund(checkout)) return false;
  checkout.refundedAt = how.at;
  checkout.refundedAmount = checkout.amount;
  checkout.stripeRefundId ??= how.stripeRefundId ?? null;
  recordEvent(tx, 'FlaggedPaymentRefunded', { checkoutId: checkout.id, amount: checkout.amount });
  if (checkout.stripeSessionId) await resolveFindings(tx, checkout.stripeSessionId, how.by, how.at, checkout.amount);
  await tx.flush();
  return true;
}

async function resolveFindings(tx: Em, sessionId: string, by: string, at: Date, amount: number) {
  // The runs first, locked in one order: as 確認済み on a finding takes them (no deadlock with it).
  const runs = await kysely(tx)
    .selectFrom('reconciliation_runs')
    .select('id')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('payment_findings')
        .select('run_id')
        .where('stripe_session_id', '=', sessionId)
        .where('kind', '=', 'paid_without_sale')
        .where('acknowledged_at', 'is', null),
    )
    .orderBy('id')
    .forUpdate()
    .execute();
  if (runs.length === 0) return;
  await kysely(tx)
    .updateTable('payment_findings')
    .set({ acknowledged_at: at, acknowledged_by: by, acknowledgement_note: `返金済み（${yen(amount)}、税込）` })
    .where('stripe_session_id', '=', sessionId)
    .where('kind', '=', 'paid_without_sale')
    .where('acknowledged_at', 'is', null)
    .execute();
  for (const run of runs) await closeRunWhenDone(tx, run.id, by, at);
}

/** Where a flagged payment's refund stands, for the findings (null: not a payment kept for a refund). */
export function flaggedRefundView(checkout: CheckoutSession) {
  if (!keptForRefund(checkout)) return null;
  const state = checkout.refundedAt ? 'refunded' : checkout.refundRequestedAt ? 'requested' : 'refundable';
  return {
    state: state as 'refundable' | 'requested' | 'refunded',
    amount: checkout.amount,
    currency: checkout.currency,
    order_number: checkout.orderNumber ?? null,
    flag_reason: checkout.flagReason ?? '',
    requested_at: checkout.refundRequestedAt?.toISOString() ?? null,
    requested_by: checkout.refundRequestedBy ?? null,
    reason: checkout.refundReason ?? null,
    refunded_at: checkout.refundedAt?.toISOString() ?? null,
    refunded_amount: checkout.refundedAmount,
  };
}

/** The flagged payments of some Checkout Sessions, by Stripe's session id. */
export async function flaggedRefundViews(em: Em, sessionIds: readonly string[]) {
  if (sessionIds.length === 0) return new Map<string, ReturnType<typeof flaggedRefundView>>();
  const checkouts = await em.find(CheckoutSession, { stripeSessionId: { $in: [...new Set(sessionIds)] } });
  return new Map(checkouts.map((checkout) => [checkout.stripeSessionId as string, flaggedRefundView(checkout)]));
}

const WHY: { flag: string; lead: string }[] = [
  {
    flag: DUPLICATE_PAYMENT_FLAG,
    lead: 'すでにご購入いただいているライセンスに重複してお支払いいただいたため、このお支払いの代金を全額返金しました。ご購入済みのライセンスは引き続きご利用いただけます。',
  },
  {
    flag: OVER_CAPACITY_FLAG,
    lead: 'お支払いの時点でライセンスが定員に達していたため、ご購入をお受けできませんでした。お支払いいただいた代金を全額返金しました。',
  },
];
const HIDDEN_LEAD =
  'お支払いの時点でライセンスの販売が終了していたため、ご購入をお受けできませんでした。お支払いいただいた代金を全額返金しました。';

/** FlaggedPaymentRefunded → 返金のお知らせ: why no purchase was made, the amount (税込), when. */
export const onFlaggedPaymentRefunded: EventHandler<'FlaggedPaymentRefunded'> = async (ctx, event) => {
  const checkout = await ctx.em.findOne(CheckoutSession, { id: event.payload.checkoutId });
  if (!checkout?.userId || !checkout.refundedAt) return 'skipped';
  const buyer = await findBuyer(ctx.em, checkout.userId);
  if (!buyer) return 'skipped';
  const license = await findLicenseForSale(ctx.em, checkout.licenseId);
  const lead = WHY.find((why) => checkout.flagReason?.startsWith(why.flag))?.lead ?? HIDDEN_LEAD;
  const result = await sendOnce(
    ctx,
    `${event.id}:flagged-refund-notice`,
    'flagged-refund-notice',
    checkout.userId,
    {
      to: buyer.email,
      ...renderMail({
        subject: '返金のお知らせ',
        greeting: `${`${buyer.lastName} ${buyer.firstName}`.trim() || 'お客'} 様`,
        paragraphs: [
          lead,
          ...orderMailLines(ctx.env.appUrl, checkout),
          `ライセンス：${license?.name ?? ''}`,
          `返金額：${yen(event.payload.amount)}（税込）`,
          `返金日時：${japanTime(checkout.refundedAt)}`,
          'クレジットカードでお支払いの場合、ご利用明細に返金が反映されるまで、カード会社により数日から1か月ほどかかることがあります。コンビニでお支払いの場合は、返金の受け取り方法のご案内が別途届きます。',
          'ご不明な点がございましたら、ご注文番号を添えてお問い合わせください。',
        ],
        notes: ['このメールは送信専用です。'],
      }),
    },
    { about: `checkout:${checkout.id}` },
  );
  return result === 'sent' ? 'done' : 'skipped';
};
