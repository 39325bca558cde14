import { japanDate, japanDeadline } from '../../lib/japan-time.ts';
import { pdfDocumentClass, pdfFonts } from '../../lib/pdf-fonts.ts';
import { yen } from '../../lib/yen.ts';
import { receiptIssuer } from '../../site-settings.ts';
import { includedTax } from './receipt-pdf.ts';

/** Everything printed on a 御請求書 of an order awaiting its bank transfer. */
export interface InvoiceContent {
  /** Recorded before drawing (invoice-record.ts). */
  invoiceNumber: string;
  orderNumber: string;
  /** With its honorific (「… 様」 or 「… 御中」). */
  addressee: string;
  licenseName: string;
  /** Whole yen, tax included. */
  amount: number;
  orderedAt: Date;
  dueAt: Date;
  issuedAt: Date;
  bank: {
    bankName: string;
    bankCode: string;
    branchName: string;
    branchCode: string;
    accountTypeLabel: string;
    accountNumber: string;
    accountHolderName: string;
  };
}

/**
 * 御請求書 as an A4 PDF: a 適格請求書 (the issuer's 登録番号, the amount per tax rate and its 消費税),
 * with the member's virtual account and the due date. pdfkit loads on first use.
 */
export function renderInvoicePdf(content: InvoiceContent): Promise<Buffer> {
  const { regular, bold } = pdfFonts();
  const doc = new (pdfDocumentClass())({
    size: 'A4',
    margin: 56,
    lang: 'ja-JP',
    displayTitle: true,
    info: { Title: `御請求書 ${content.invoiceNumber}`, Author: receiptIssuer.name },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.registerFont('regular', regular);
  doc.registerFont('bold', bold);
  const left = 56;
  const width = doc.page.width - 112;
  const rate = receiptIssuer.taxRatePercent;
  const tax = includedTax(content.amount);
  doc.font('bold').fontSize(26).text('御 請 求 書', left, 64, { width, align: 'center', characterSpacing: 4 });
  doc.font('regular').fontSize(10);
  doc.text(`請求書番号　${content.invoiceNumber}`, left, 116, { width, align: 'right' });
  doc.text(`発行日　${japanDate(content.issuedAt)}`, { width, align: 'right' });
  doc
    .font('bold')
    .fontSize(16)
    .text(content.addressee, left, 150, { width: width * 0.6 });
  doc
    .font('regular')
    .fontSize(11)
    .text('下記のとおりご請求申し上げます。', left, doc.y + 8);
  doc
    .font('bold')
    .fontSize(18)
    .text(`ご請求金額　${yen(content.amount)}（税込）`, left, doc.y + 12);
  doc.font('regular').fontSize(11);
  doc.text(`お支払期限　${japanDeadline(content.dueAt)}（日本時間）`, left, doc.y + 6);
  doc.text(`注文番号　${content.orderNumber}　（ご注文日 ${japanDate(content.orderedAt)}）`, left, doc.y + 4);
  doc
    .font('bold')
    .fontSize(11)
    .text('内訳', left, doc.y + 16);
  doc.font('regular').fontSize(10);
  for (const line of [
    `品目　${content.licenseName}　数量 1　税率 ${rate}%　金額（税込）${yen(content.amount)}`,
    `${rate}%対象 合計（税込）${yen(content.amount)}　（税抜 ${yen(content.amount - tax)}）`,
    `うち消費税（${rate}%）${yen(tax)}`,
  ]) {
    doc.text(line, left, doc.y + 4, { width });
  }
  drawAccountAndIssuer(doc, left, width, content.bank);
  doc.end();
  return done;
}

/** The virtual account, the issuer (with 登録番号) and the notes at the foot. */
function drawAccountAndIssuer(doc: PDFKit.PDFDocument, left: number, width: number, bank: InvoiceContent['bank']) {
  doc
    .font('bold')
    .fontSize(11)
    .text('お振込先（お客さま専用口座）', left, doc.y + 16);
  doc.font('regular').fontSize(10);
  for (const line of [
    `銀行　${bank.bankName}（${bank.bankCode}）`,
    `支店　${bank.branchName}（${bank.branchCode}）`,
    `口座種別　${bank.accountTypeLabel}`,
    `口座番号　${bank.accountNumber}`,
    `口座名義　${bank.accountHolderName}`,
  ]) {
    doc.text(line, left, doc.y + 4, { width });
  }
  doc
    .font('bold')
    .fontSize(12)
    .text(receiptIssuer.name, left + width * 0.5, doc.y + 24, { width: width * 0.5 });
  doc.font('regular').fontSize(10);
  doc.text(receiptIssuer.address, left + width * 0.5, doc.y + 4, { width: width * 0.5 });
  doc.text(receiptIssuer.contact, left + width * 0.5, doc.y + 2, { width: width * 0.5 });
  doc.text(`登録番号　${receiptIssuer.registrationNumber}`, left + width * 0.5, doc.y + 2, { width: width * 0.5 });
  doc.fontSize(9).fillColor('#555555');
  doc.text(
    '振込手数料はお客さまのご負担でお願いいたします。金額の過不足は決済代行会社（Stripe）がお客さまの残高として管理し、精算します。この請求書は電子的に発行したものです。',
    left,
    doc.page.height - 110,
    { width },
  );
}
