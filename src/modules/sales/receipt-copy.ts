import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import type { SessionUser } from '../../http/context.ts';
import { AppError } from '../../http/errors.ts';
import type { EventHandler } from '../../jobs/context.ts';
import { recordAudit } from '../audit/index.ts';
import { renderMail, sendOnce } from '../mail/index.ts';
import { SaleReceipt } from './entities/receipt.entity.ts';
import { Sale } from './entities/sale.entity.ts';
import { renderCopy } from './receipt.ts';
import { receiptNumber } from './receipt-pdf.ts';

/**
 * An administrator sends a receipt's 控え to an address (a withdrawn member asked through お問い合わせ):
 * audited with the address, mailed by a job with the PDF attached. The sale keeps the buyer's details
 * after withdrawal, so the 控え prints as the member's receipt did.
 */
export async function requestReceiptCopyMail(orm: Orm, admin: SessionUser, saleId: number, email: string) {
  await transact(orm.em as Em, async (tx) => {
    const sale = await tx.findOne(Sale, { id: saleId });
    if (!sale) throw new AppError('not_found', '領収書の控えを送るご購入が見つかりませんでした。');
    if (sale.refundedAt) throw new AppError('conflict', '返金済みのご購入のため、領収書の控えは送れません。');
    recordEvent(tx, 'ReceiptCopyRequested', { saleId, email, actorId: admin.id });
    recordAudit(
      tx,
      { id: admin.id, email: admin.email },
      {
        action: 'sale.receipt.copy.mail',
        targetType: 'sale',
        targetId: saleId,
        after: { receipt_number: receiptNumber(saleId), sent_to: email, buyer_email: sale.buyerEmail },
      },
    );
  });
}

export const onReceiptCopyRequested: EventHandler<'ReceiptCopyRequested'> = async (ctx, event) => {
  const sale = await ctx.em.findOne(Sale, { id: event.payload.saleId });
  if (!sale || sale.refundedAt) return 'skipped';
  const receipt = await ctx.em.findOne(SaleReceipt, { saleId: sale.id });
  const method = receipt?.paymentMethod ?? null;
  const { pdf, number } = await renderCopy(sale, receipt, method);
  const name = `${sale.buyerLastName} ${sale.buyerFirstName}`.trim();
  const result = await sendOnce(
    ctx,
    `${event.id}:receipt-copy`,
    'receipt-copy',
    sale.userId,
    {
      to: event.payload.email,
      ...renderMail({
        subject: '領収書の控えをお送りします',
        greeting: `${name || 'お客'} 様`,
        paragraphs: [
          'お問い合わせいただいた領収書の控えを、このメールに PDF で添付してお送りします。',
          `ライセンス：${sale.licenseName}`,
          `領収書番号：${number}`,
          ...(sale.orderNumber ? [`ご注文番号：${sale.orderNumber}`] : []),
          '控えは、発行済みの領収書と同じ内容に「控え」と記したものです。',
        ],
        notes: ['このメールは送信専用です。ご不明な点はお問い合わせフォームからご連絡ください。'],
      }),
      attachments: [{ filename: `領収書_${number}_控え.pdf`, content: pdf, contentType: 'application/pdf' }],
    },
    { about: `sale:${sale.id}` },
  );
  return result === 'sent' ? 'done' : 'skipped';
};
