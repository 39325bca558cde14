import { japanDate } from '../../lib/japan-time.ts';
import { pdfDocumentClass, pdfFonts } from '../../lib/pdf-fonts.ts';
import { yen } from '../../lib/yen.ts';
import { receiptIssuer } from '../../site-settings.ts';
import { includedTax } from './receipt-pdf.ts';

export interface QuotationContent {
  quotationNumber: string;
  /** With its honorific: 「〇〇消防局 御中」. */
  addressee: string;
  licenseName: string;
  /** Whole yen, tax included. */
  amount: number;
  issuedAt: Date;
  expiresAt: Date;
}

const INK = '#1a1a1a';
const MUTED = '#555555';
const RULE = '#999999';

type Doc = PDFKit.PDFDocument;

/** The 御見積書 as an A4 PDF, drawn as the receipt is (same fonts, issuer and tax rounding). */
export function renderQuotationPdf(content: QuotationContent): Promise<Buffer> {
  const { regular, bold } = pdfFonts();
  const doc = new (pdfDocumentClass())({
    size: 'A4',
    margin: 56,
    lang: 'ja-JP',
    displayTitle: true,
    info: { Title: `御見積書 ${content.quotationNumber}`, Author: receiptIssuer.name, Subject: content.licenseName },
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
  drawHeading(doc, left, width, content);
  drawItems(doc, left, width, content);
  drawIssuer(doc, left, width, content);
  doc.end();
  return done;
}

function drawHeading(doc: Doc, left: number, width: number, content: QuotationContent) {
  const rate = receiptIssuer.taxRatePercent;
  doc.fillColor(INK).font('bold').fontSize(28).text('御 見 積 書', left, 64, { width, align: 'center', characterSpacing: 4 });
  doc.font('regular').fontSize(10);
  doc.text(`見積番号　${content.quotationNumber}`, left, 118, { width, align: 'right' });
  doc.text(`発行日　${japanDate(content.issuedAt)}`, left, doc.y + 2, { width, align: 'right' });
  doc.text(`有効期限　${japanDate(content.expiresAt)}`, left, doc.y + 2, { width, align: 'right' });
  doc
    .font('bold')
    .fontSize(18)
    .text(content.addressee, left, 170, { width: width * 0.65 });
  const underline = doc.y + 4;
  doc
    .lineWidth(1)
    .strokeColor(INK)
    .moveTo(left, underline)
    .lineTo(left + width * 0.65, underline)
    .stroke();
  doc
    .font('regular')
    .fontSize(11)
    .text('下記のとおりお見積り申し上げます。', left, underline + 14, { width });
  const boxTop = doc.y + 12;
  doc.lineWidth(1.5).rect(left, boxTop, width, 56).stroke();
  doc
    .font('regular')
    .fontSize(12)
    .text('御見積金額', left + 20, boxTop + 21);
  doc
    .font('bold')
    .fontSize(24)
    .text(`${yen(content.amount)}-`, left + 120, boxTop + 12, { width: width - 260, align: 'center' });
  doc
    .font('regular')
    .fontSize(12)
    .text('（税込）', left + width - 130, boxTop + 21, { width: 110, align: 'right' });
  doc.text(`うち消費税（${rate}%）${yen(includedTax(content.amount))}`, left, boxTop + 70, { width });
}

/** 明細: one licence, its tax-included price, and the total per rate with the tax in it. */
function drawItems(doc: Doc, left: number, width: number, content: QuotationContent) {
  const rate = receiptIssuer.taxRatePercent;
  let y = doc.y + 20;
  const cols = [left, left + width * 0.5, left + width * 0.6, left + width * 0.8];
  const widths = [width * 0.5 - 8, width * 0.1 - 8, width * 0.2 - 8, width * 0.2];
  const row = (cells: string[], font: 'regular' | 'bold') => {
    doc.font(font).fontSize(10).fillColor(INK);
    const top = y + 5;
    cells.forEach((cell, i) => {
      doc.text(cell, cols[i] as number, top, { width: widths[i] as number, align: i === 0 ? 'left' : 'right' });
    });
    y = Math.max(doc.y, top + 12) + 5;
    doc
      .lineWidth(0.5)
      .strokeColor(RULE)
      .moveTo(left, y)
      .lineTo(left + width, y)
      .stroke();
  };
  doc
    .lineWidth(0.5)
    .strokeColor(RULE)
    .moveTo(left, y)
    .lineTo(left + width, y)
    .stroke();
  row(['品名', '数量', '単価（税込）', '金額（税込）'], 'bold');
  row([content.licenseName, '1', yen(content.amount), yen(content.amount)], 'regular');
  row([`${rate}%対象 合計`, '', '', yen(content.amount)], 'regular');
  row([`うち消費税（${rate}%）`, '', '', yen(includedTax(content.amount))], 'regular');
  doc.y = y;
}

function drawIssuer(doc: Doc, left: number, width: number, content: QuotationContent) {
  const issuerLeft = left + width * 0.5;
  const issuerWidth = width * 0.5;
  const y = doc.y + 30;
  doc.font('bold').fontSize(12).fillColor(INK).text(receiptIssuer.name, issuerLeft, y, { width: issuerWidth });
  doc.font('regular').fontSize(10);
  doc.text(receiptIssuer.address, issuerLeft, doc.y + 4, { width: issuerWidth });
  doc.text(receiptIssuer.contact, issuerLeft, doc.y + 2, { width: issuerWidth });
  doc.text(`登録番号　${receiptIssuer.registrationNumber}`, issuerLeft, doc.y + 2, { width: issuerWidth });
  const notes = [
    `有効期限: ${japanDate(content.expiresAt)}（日本時間）まで。価格は発行日の税込価格です。`,
    'お支払い方法は、会員ページの購入手続き画面でお選びいただけます。',
    `お問い合わせの際は見積番号（${content.quotationNumber}）をお知らせください。`,
    'この見積書は電子的に発行したものです。',
  ].join('\n');
  doc.font('regular').fontSize(9).fillColor(MUTED);
  doc.text(notes, left, doc.page.height - 56 - doc.heightOfString(notes, { width }) - 4, { width });
}
