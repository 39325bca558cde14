import type { EventHandler } from '../../../jobs/context.ts';
import { japanTime, renderMail, sendOnce } from '../../mail/index.ts';
import { COMPLETE, Sale } from '../entities/sale.entity.ts';
import { buildExport } from '../export.ts';
import { forgetUser, markRefunded, recordSale } from '../service.ts';

export const onCheckoutPaid: EventHandler<'CheckoutPaid'> = (ctx, event) => recordSale(ctx.em, event.payload);
export const onPaymentRefunded: EventHandler<'PaymentRefunded'> = (ctx, event) => markRefunded(ctx.em, event.payload);
export const onUserDeleted: EventHandler<'UserDeleted'> = (ctx, event) => forgetUser(ctx.em, event.payload.userId);

/** ExportRequested → the CSV file (idempotent: a finished export is not built again). */
export const onExportRequested: EventHandler<'ExportRequested'> = (ctx, event) =>
  buildExport(ctx.em, ctx.files, ctx.env.exportGroupName, event.payload.exportId, ctx.log);

/** SalePaid → the receipt e-mail. */
export const onSalePaid: EventHandler<'SalePaid'> = async (ctx, event) => {
  const sale = await ctx.em.findOne(Sale, { id: event.payload.saleId });
  if (!sale?.buyerEmail) return 'skipped';
  const result = await sendOnce(ctx, `${event.id}:receipt`, 'receipt', sale.userId, {
    to: sale.buyerEmail,
    ...renderMail({
      subject: 'ご購入ありがとうございます',
      greeting: `${`${sale.buyerLastName} ${sale.buyerFirstName}`.trim() || 'お客'} 様`,
      paragraphs: [
        'ライセンスのご購入ありがとうございます。お支払いを確認しました。',
        `ライセンス：${sale.licenseName}`,
        `金額：¥${sale.amount.toLocaleString('ja-JP')}（税込）`,
        `お支払い日時：${japanTime(sale.paidAt)}`,
        `注文番号：${sale.id}`,
        '研修管理システムへの登録が済みましたら、あらためてご案内します。購入履歴は会員情報のページからご確認いただけます。',
      ],
      ...(sale.receiptUrl ? { action: { label: '領収書を表示する', url: sale.receiptUrl } } : {}),
      notes: ['このメールは送信専用です。'],
    }),
  });
  return result === 'sent' ? 'done' : 'skipped';
};

/** SaleStatusChanged to 登録済み → tell each buyer their licence is registered in the training system. */
export const onSaleStatusChanged: EventHandler<'SaleStatusChanged'> = async (ctx, event) => {
  if (event.payload.to !== COMPLETE) return 'skipped';
  let sent = 0;
  for (const saleId of event.payload.saleIds) {
    const sale = await ctx.em.findOne(Sale, { id: saleId });
    if (!sale?.buyerEmail || sale.refundedAt) continue;
    const result = await sendOnce(ctx, `${event.id}:registered:${saleId}`, 'license-registered', sale.userId, {
      to: sale.buyerEmail,
      ...renderMail({
        subject: 'ライセンスの登録が完了しました',
        greeting: `${`${sale.buyerLastName} ${sale.buyerFirstName}`.trim() || 'お客'} 様`,
        paragraphs: [
          `ご購入いただいた「${sale.licenseName}」を研修管理システムに登録しました。`,
          '研修管理システムからのご案内に沿って受講をお進めください。',
          `注文番号：${sale.id}`,
        ],
        notes: ['このメールは送信専用です。'],
      }),
    });
    if (result === 'sent') sent++;
  }
  return sent ? 'done' : 'skipped';
};
