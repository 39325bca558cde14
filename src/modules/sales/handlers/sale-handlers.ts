import type { EventHandler, JobContext, JobResult } from '../../../jobs/context.ts';
import { japanTime, renderMail, sendOnce } from '../../mail/index.ts';
import { Sale, SaleStatus } from '../entities/sale.entity.ts';
import { forgetUser, markRefunded, recordSale } from '../record-sale.ts';
import { moveSalesPage, planRegistrationMails } from '../status-moves.ts';

export const onCheckoutPaid: EventHandler<'CheckoutPaid'> = (ctx, event) => recordSale(ctx.em, event.payload);
export const onPaymentRefunded: EventHandler<'PaymentRefunded'> = (ctx, event) => markRefunded(ctx.em, event.payload);
export const onUserDeleted: EventHandler<'UserDeleted'> = (ctx, event) =>
  forgetUser(ctx.em, event.payload.userId, event.payload.by);

/** The member's purchase history with the receipt dialog of `saleId` open (web/src/features/purchase). */
const receiptPageUrl = (appUrl: string, userId: string, saleId: number) =>
  `${appUrl}/users/${encodeURIComponent(userId)}?receipt=${saleId}`;

const PAYMENT_METHOD_NAMES = { card: 'クレジットカード', konbini: 'コンビニ払い' } as const;
const KONBINI_PROOF =
  'コンビニ払いでは、店舗でお受け取りになった払込票控え（受領証）がお支払いの証明になります。大切に保管してください。当店の領収書が必要な場合は、会員情報のページの購入履歴から発行できます。';

/** SalePaid → the receipt e-mail. */
export const onSalePaid: EventHandler<'SalePaid'> = async (ctx, event) => {
  const sale = await ctx.em.findOne(Sale, { id: event.payload.saleId });
  if (!sale?.buyerEmail) return 'skipped';
  const method = event.payload.paymentMethod;
  const result = await sendOnce(
    ctx,
    `${event.id}:receipt`,
    'receipt',
    sale.userId,
    {
      to: sale.buyerEmail,
      ...renderMail({
        subject: 'ご購入ありがとうございます',
        greeting: `${`${sale.buyerLastName} ${sale.buyerFirstName}`.trim() || 'お客'} 様`,
        paragraphs: [
          'ライセンスのご購入ありがとうございます。お支払いを確認しました。',
          `ライセンス：${sale.licenseName}`,
          `金額：¥${sale.amount.toLocaleString('ja-JP')}（税込）`,
          ...(method ? [`お支払い方法：${PAYMENT_METHOD_NAMES[method]}`] : []),
          `お支払い日時：${japanTime(sale.paidAt)}`,
          ...(sale.orderNumber ? [`ご注文番号：${sale.orderNumber}`] : []),
          ...(method === 'konbini' ? [KONBINI_PROOF] : []),
          '研修管理システムへの登録が済みましたら、あらためてご案内します。購入履歴は会員情報のページからご確認いただけます。',
        ],
        // The shop's own 領収書 (宛名 and 但し書き of the member's choice), not Stripe's receipt page.
        ...(sale.userId
          ? { action: { label: '領収書を発行する', url: receiptPageUrl(ctx.env.appUrl, sale.userId, sale.id) } }
          : {}),
        notes: ['このメールは送信専用です。'],
      }),
    },
    { about: `sale:${sale.id}` },
  );
  return result === 'sent' ? 'done' : 'skipped';
};

/**
 * SaleRefunded → 返金のお知らせ to the buyer, whoever refunded (the back office or Stripe's dashboard):
 * the order, the amount, when, and that the card company or bank may take days to show it.
 */
export const onSaleRefunded: EventHandler<'SaleRefunded'> = async (ctx, event) => {
  const sale = await ctx.em.findOne(Sale, { id: event.payload.saleId });
  if (!sale?.buyerEmail || !sale.refundedAt) return 'skipped';
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
          'ご購入いただいたライセンスの代金を返金しました。',
          ...(sale.orderNumber ? [`ご注文番号：${sale.orderNumber}`] : []),
          `ライセンス：${sale.licenseName}`,
          `返金額：¥${sale.amount.toLocaleString('ja-JP')}（税込）`,
          `返金日時：${japanTime(sale.refundedAt)}`,
          'クレジットカードでお支払いの場合、ご利用明細に返金が反映されるまで、カード会社により数日から1か月ほどかかることがあります。コンビニでお支払いの場合は、返金の受け取り方法のご案内が別途届きます。',
          'このライセンスは返金に伴いご利用いただけなくなりました。ご不明な点がございましたら、ご注文番号を添えてお問い合わせください。',
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
            ...(sale.orderNumber ? [`ご注文番号：${sale.orderNumber}`] : []),
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
