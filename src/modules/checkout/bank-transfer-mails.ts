import { sql } from 'kysely';
import { db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import type { JobContext, JobResult } from '../../jobs/context.ts';
import { japanDeadline } from '../../lib/japan-time.ts';
import { orderMailLines } from '../../lib/order-page.ts';
import { yen } from '../../lib/yen.ts';
import { findBuyer } from '../accounts/index.ts';
import { findLicenseForSale } from '../licenses/index.ts';
import { renderMail, sendOnce } from '../mail/index.ts';
import { bankTransferLines, bankTransferView } from './bank-transfer.ts';
import { CheckoutSession } from './entities/checkout-session.entity.ts';
import { dueReminders } from './payment-reminders.ts';

const RECONCILED_BY_STRIPE =
  'お振込金額が不足・超過した場合も、差額は Stripe（決済代行会社）がお客さま専用口座の残高として管理し、精算します。';

type Kind = 'bank-transfer-instructions' | 'bank-transfer-reminder' | 'bank-transfer-lapsed';
const MAIL: Record<Kind, { subject: string; lead: string }> = {
  'bank-transfer-instructions': {
    subject: '銀行振込のお振込先のご案内',
    lead: 'ライセンスのお申し込みありがとうございます。銀行振込でのお支払いをお待ちしています。次のお客さま専用口座へ、期限までにお振り込みください。お振込みを確認しましたら、あらためてメールでお知らせします。',
  },
  'bank-transfer-reminder': {
    subject: '銀行振込のお振込期限が近づいています',
    lead: 'お申し込みいただいたライセンスのお振込期限が近づいています。まだお振込みが確認できていませんので、期限までに次の口座へお振り込みください。',
  },
  'bank-transfer-lapsed': {
    subject: '銀行振込の振込期限切れのお知らせ',
    lead: 'お申し込みいただいたライセンスは、お振込期限までにお振込みが確認できなかったため、お申し込みを取り消しました。お支払いはありません。',
  },
};

/** One of the three bank transfer mails of a checkout, once per event. */
export async function mailBankTransfer(ctx: JobContext, eventId: string, checkoutId: string, kind: Kind): Promise<JobResult> {
  const checkout = await ctx.em.findOne(CheckoutSession, { id: checkoutId });
  const view = checkout ? bankTransferView(checkout) : null;
  if (!checkout?.userId || !view) return 'skipped';
  const pending = checkout.state === 'awaiting_payment' && new Date(view.expires_at).getTime() > Date.now();
  if (kind === 'bank-transfer-lapsed' ? !['payment_failed', 'expired'].includes(checkout.state) : !pending) return 'skipped';
  const buyer = await findBuyer(ctx.em, checkout.userId);
  if (!buyer) return 'skipped';
  const license = await findLicenseForSale(ctx.em, checkout.licenseId);
  const deadline = japanDeadline(new Date(view.expires_at));
  const details =
    kind === 'bank-transfer-lapsed'
      ? [`金額：${yen(checkout.amount)}（税込）`, `お振込期限：${deadline}（日本時間）`]
      : [...bankTransferLines(view, deadline), RECONCILED_BY_STRIPE];
  const result = await sendOnce(
    ctx,
    `${eventId}:${kind}`,
    kind,
    checkout.userId,
    {
      to: buyer.email,
      ...renderMail({
        subject: MAIL[kind].subject,
        greeting: `${`${buyer.lastName} ${buyer.firstName}`.trim() || 'お客'} 様`,
        paragraphs: [
          MAIL[kind].lead,
          ...orderMailLines(ctx.env.appUrl, checkout),
          `ライセンス：${license?.name ?? ''}`,
          ...details,
          ...(kind === 'bank-transfer-lapsed'
            ? ['ご購入を希望される場合は、お手数ですが以下の URL からもう一度お手続きください。']
            : ['御請求書は、ご注文の内容のページから宛名を選んで発行できます。']),
        ],
        ...(kind === 'bank-transfer-lapsed'
          ? { action: { label: 'ライセンスのページを開く', url: `${ctx.env.appUrl}/licenses/${checkout.licenseId}` } }
          : {}),
        notes: [
          ...(kind === 'bank-transfer-reminder'
            ? ['すでにお振り込みいただいた場合は、このメールと行き違いになっています。ご容赦ください。']
            : []),
          'このメールは送信専用です。',
        ],
      }),
    },
    { about: `checkout:${checkout.id}` },
  );
  return result === 'sent' ? 'done' : 'skipped';
}

/**
 * The sweep's bank transfer work: reminders due (from 09:00 Japan time, two days before the deadline's
 * day) and orders past their deadline lapsed (state moved once, so one lapse mail).
 */
async function dueBankTransfers(em: Em, now: Date) {
  const at = sql<string>`${now.toISOString()}::timestamptz`;
  const reminded = await dueReminders(em, now, 'bank_transfer');
  const lapsed = await kysely(em)
    .updateTable('checkout_sessions')
    .set({ state: 'payment_failed', updated_at: sql`now()` })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('checkout_sessions')
        .select('id')
        .where('state', '=', 'awaiting_payment')
        .where('bank_transfer_expires_at', '<=', at)
        .orderBy('bank_transfer_expires_at')
        .limit(100)
        .forUpdate()
        .skipLocked(),
    )
    .returning('id')
    .execute();
  return [...reminded, ...lapsed.map((row) => ({ name: 'BankTransferLapsed' as const, payload: { checkoutId: row.id } }))];
}

export const bankTransferSweep =
  (clock: () => Date = () => new Date()) =>
  (ctx: { em: Em }) =>
    dueBankTransfers(ctx.em, clock());
