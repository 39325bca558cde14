import type { EventHandler, JobContext, JobResult } from '../../../jobs/context.ts';
import { orderMailLines } from '../../../lib/order-page.ts';
import { yen } from '../../../lib/yen.ts';
import { findBuyer } from '../../accounts/index.ts';
import { japanTime, renderMail, sendOnce } from '../../mail/index.ts';
import { Sale, SaleStatus } from '../entities/sale.entity.ts';
import { purchaseMail } from '../purchase-mail.ts';
import { forgetUser, recordSale } from '../record-sale.ts';
import { markRefunded } from '../refund-confirm.ts';
import { moveSalesPage, planRegistrationMails } from '../status-moves.ts';

export const onCheckoutPaid: EventHandler<'CheckoutPaid'> = (ctx, event) => recordSale(ctx.em, event.payload);
export const onPaymentRefunded: EventHandler<'PaymentRefunded'> = (ctx, event) => markRefunded(ctx.em, event.payload);
export const onUserDeleted: EventHandler<'UserDeleted'> = (ctx, event) =>
  forgetUser(ctx.em, event.payload.userId, event.payload.by);

/** SalePaid → the receipt e-mail. */
export const onSalePaid: EventHandler<'SalePaid'> = async (ctx, event) => {
  const sale = await ctx.em.findOne(Sale, { id: event.payload.saleId });
  if (!sale?.buyerEmail) return 'skipped';
  const result = await sendOnce(ctx, `${event.id}:receipt`, 'receipt', sale.userId, purchaseMail(ctx, sale, sale.buyerEmail), {
    about: `sale:${sale.id}`,
  });
  return result === 'sent' ? 'done' : 'skipped';
};

/** PurchaseMailResendRequested → the purchase mail again, marked 再送, to the member's address now. */
export const onPurchaseMailResendRequested: EventHandler<'PurchaseMailResendRequested'> = async (ctx, event) => {
  const sale = await ctx.em.findOne(Sale, { id: event.payload.saleId });
  if (!sale) return 'skipped';
  const to = (sale.userId ? (await findBuyer(ctx.em, sale.userId))?.email : null) ?? sale.buyerEmail;
  if (!to) return 'skipped';
  const mail = purchaseMail(ctx, sale, to, true);
  const result = await sendOnce(ctx, `${event.id}:receipt-resend`, 'receipt-resend', sale.userId, mail, {
    about: `sale:${sale.id}`,
  });
  return result === 'sent' ? 'done' : 'skipped';
};

/**
 * SaleRefunded → 返金のお知らせ to the buyer, whoever refunded (the back office or Stripe's dashboard):
 * the order, the amount, when, and that the card company or bank may take days to show it.
 */
export const onSaleRefunded: EventHandler<'SaleRefunded'> = async (ctx, event) => {
  const sale = await ctx.em.findOne(Sale, { id: event.payload.saleId });
  if (!sale?.buyerEmail || (!sale.refundedAt && !sale.refundedAmount)) return 'skipped';
  const amount = event.payload.amount ?? sale.amount;
  // A part refunded: the licence stays the member's; whole: it is withdrawn.
  const whole = Boolean(sale.refundedAt);
  const result = await sendOnce(
    ctx,
    `${event.id}:refund-notice`,
    'refund-notice',
    sale.userId,
    {
      to: sale.buyerEmail,
      ...renderMail({
        subject: '返金のお知らせ',
        greeting: `${`${sale.buyerLastName} ${sale.buyerFirstName}`.trim() || 'お客'} 様`,
        paragraphs: [
          whole ? 'ご購入いただいたライセンスの代金を返金しました。' : 'ご購入いただいたライセンスの代金の一部を返金しました。',
          ...orderMailLines(ctx.env.appUrl, sale),
          `ライセンス：${sale.licenseName}`,
          `返金額：${yen(amount)}（税込）`,
          ...(whole ? [] : [`お支払い額：${yen(sale.amount)}（税込）／返金済みの合計：${yen(sale.refundedAmount)}`]),
          `返金日時：${japanTime(sale.refundedAt ?? event.occurredAt)}`,
          'クレジットカードでお支払いの場合、ご利用明細に返金が反映されるまで、カード会社により数日から1か月ほどかかることがあります。コンビニでお支払いの場合は、返金の受け取り方法のご案内が別途届きます。',
          whole
            ? 'このライセンスは返金に伴いご利用いただけなくなりました。ご不明な点がございましたら、ご注文番号を添えてお問い合わせください。'
            : 'ライセンスは引き続きご利用いただけます。ご不明な点がございましたら、ご注文番号を添えてお問い合わせください。',
        ],
        notes: ['このメールは送信専用です。'],
      }),
    },
    { about: `sale:${sale.id}` },
  );
  return result === 'sent' ? 'done' : 'skipped';
};

/**
 * SaleStatusChanged to 登録済み → the registration mails, planned as jobs of at most MAIL_CHUNK sales
 * (RegistrationMailsDue). An event written before moves existed names its sales and is sent as it is.
 */
export const onSaleStatusChanged: EventHandler<'SaleStatusChanged'> = async (ctx, event) => {
  if (event.payload.to !== SaleStatus.Registered) return 'skipped';
  if ('saleIds' in event.payload) return sendRegistrationMails(ctx, event.id, event.payload.saleIds);
  return planRegistrationMails(ctx.em, event.payload.moveId);
};

/** RegistrationMailsDue → tell each buyer of this page that their licence is registered in the training system. */
export const onRegistrationMailsDue: EventHandler<'RegistrationMailsDue'> = async (ctx, event) =>
  sendRegistrationMails(ctx, event.payload.moveId, await moveSalesPage(ctx.em, event.payload.moveId, event.payload.fromSaleId));

/** One mail per sale still paid (a refunded sale is not told), each once per move (`keyPrefix`). */
async function sendRegistrationMails(ctx: JobContext, keyPrefix: string, saleIds: readonly number[]): Promise<JobResult> {
  let sent = 0;
  const sales = await ctx.em.find(Sale, { id: { $in: [...saleIds] } }, { orderBy: { id: 'asc' } });
  for (const sale of sales) {
    if (!sale.buyerEmail || sale.refundedAt) continue;
    const result = await sendOnce(
      ctx,
      `${keyPrefix}:registered:${sale.id}`,
      'license-registered',
      sale.userId,
      {
        to: sale.buyerEmail,
        ...renderMail({
          subject: 'ライセンスの登録が完了しました',
          greeting: `${`${sale.buyerLastName} ${sale.buyerFirstName}`.trim() || 'お客'} 様`,
          paragraphs: [
            `ご購入いただいた「${sale.licenseName}」を研修管理システムに登録しました。`,
            '研修管理システムからのご案内に沿って受講をお進めください。',
            ...orderMailLines(ctx.env.appUrl, sale),
          ],
          notes: ['このメールは送信専用です。'],
        }),
      },
      { about: `sale:${sale.id}` },
    );
    if (result === 'sent') sent++;
  }
  return sent ? 'done' : 'skipped';
}
