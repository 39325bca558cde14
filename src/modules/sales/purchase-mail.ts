import type { JobContext } from '../../jobs/context.ts';
import { orderMailLines } from '../../lib/order-page.ts';
import { yen } from '../../lib/yen.ts';
import { japanTime, renderMail } from '../mail/index.ts';
import { PAYMENT_METHOD_LABEL, type Sale } from './entities/sale.entity.ts';

/** The member's purchase history with the receipt dialog of `saleId` open (web/src/features/purchase). */
const receiptPageUrl = (appUrl: string, userId: string, saleId: number) =>
  `${appUrl}/users/${encodeURIComponent(userId)}?receipt=${saleId}`;

const KONBINI_PROOF =
  'コンビニ払いでは、店舗でお受け取りになった払込票控え（受領証）がお支払いの証明になります。大切に保管してください。当店の領収書が必要な場合は、会員情報のページの購入履歴から発行できます。';

/** ご購入ありがとうございます: sent when paid, and again, marked 再送, when an administrator asks. */
export function purchaseMail(ctx: JobContext, sale: Sale, to: string, resent = false) {
  return {
    to,
    ...renderMail({
      subject: `ご購入ありがとうございます${resent ? '（再送）' : ''}`,
      greeting: `${`${sale.buyerLastName} ${sale.buyerFirstName}`.trim() || 'お客'} 様`,
      paragraphs: [
        ...(resent ? ['ご依頼により、ご購入時のお知らせをあらためてお送りします。'] : []),
        'ライセンスのご購入ありがとうございます。お支払いを確認しました。',
        `ライセンス：${sale.licenseName}`,
        `金額：${yen(sale.amount)}（税込）`,
        ...(PAYMENT_METHOD_LABEL[sale.paymentMethod] ? [`お支払い方法：${PAYMENT_METHOD_LABEL[sale.paymentMethod]}`] : []),
        `お支払い日時：${japanTime(sale.paidAt)}`,
        ...orderMailLines(ctx.env.appUrl, sale),
        ...(sale.paymentMethod === 'konbini' ? [KONBINI_PROOF] : []),
        '研修管理システムへの登録が済みましたら、あらためてご案内します。購入履歴は会員情報のページからご確認いただけます。',
      ],
      // The shop's own 領収書 (宛名 and 但し書き of the member's choice), not Stripe's receipt page.
      ...(sale.userId
        ? { action: { label: '領収書を発行する', url: receiptPageUrl(ctx.env.appUrl, sale.userId, sale.id) } }
        : {}),
      notes: ['このメールは送信専用です。'],
    }),
  };
}
