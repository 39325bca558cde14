import { japanDate } from '../../lib/japan-time.ts';
import { pdfDocumentClass, pdfFonts } from '../../lib/pdf-fonts.ts';
import { yen } from '../../lib/yen.ts';
import { QUALIFIED_INVOICE_NUMBER, receiptIssuer } from '../../site-settings.ts';
import { PAYMENT_METHOD_LABEL } from './entities/sale.entity.ts';

// Without a well-formed registration number the receipt is no 適格簡易請求書: refuse to start.
if (!QUALIFIED_INVOICE_NUMBER.test(receiptIssuer.registrationNumber)) {
  throw new Error(
    `src/site-settings.ts: receiptIssuer.registrationNumber must be 「T」 and 13 digits (適格請求書発行事業者の登録番号), got ${JSON.stringify(receiptIssuer.registrationNumber)}`,
  );
}

/** Everything printed on one receipt. */
export interface ReceiptContent {
  receiptNumber: string;
  /** The addressee with its honorific (「… 様」 or 「… 御中」); empty on a 控え of a receipt not yet chosen. */
  addressee: string;
  /** 但し書き, printed as 「但し <proviso>」. */
  proviso: string;
  licenseName: string;
  /** Whole yen, tax included. */
  amount: number;
  paidAt: Date;
  issuedAt: Date;
  /** 1 for the first issue; from 2 on the receipt says 再発行. */
  issueCount: number;
  firstIssuedAt: Date;
  paymentMethod: string | null;
  saleId: number;
  /** An administrator's 控え: `issueCount` is then the member's count so far, `issuedAt` their last issue. */
  copy?: { printedAt: Date };
  /** The sale's 注文番号 (`LS-2611-7K3Q9M`). */
  orderNumber: string | null;
}

/** The tax inside a tax-included amount, rounded down once per receipt and rate (適格簡易請求書). */
export function includedTax(amount: number, ratePercent: number = receiptIssuer.taxRatePercent): number {
  return Math.floor((amount * ratePercent) / (100 + ratePercent));
}

/** `R-` and the sale id padded to 8 digits: stable for a sale, whoever issues it and however often. */
export const receiptNumber = (saleId: number) => `R-${String(saleId).padStart(8, '0')}`;

/** Stripe names a bank transfer's charge `customer_balance`. */
const paymentMethodLabel = (type: string | null) =>
  type ? (PAYMENT_METHOD_LABEL[type === 'customer_balance' ? 'bank_transfer' : type] ?? null) : null;

const INK = '#1a1a1a';
const MUTED = '#555555';
const RULE = '#999999';

type Doc = PDFKit.PDFDocument;
/** The printable area's left edge, width and right edge. */
type Frame = { left: number; width: number; right: number };

/** The receipt as an A4 PDF with its Japanese text embedded (subset font). */
export function renderReceiptPdf(content: ReceiptContent): Promise<Buffer> {
  const { regular, bold } = pdfFonts();
  const copy = content.copy ?? null;
  const reissue = !copy && content.issueCount > 1;
  const doc = new (pdfDocumentClass())({
    size: 'A4',
    margin: 56,
    lang: 'ja-JP',
    displayTitle: true,
    info: {
      Title: `領収書 ${content.receiptNumber}${copy ? '（控え）' : reissue ? '（再発行）' : ''}`,
      Author: receiptIssuer.name,
      Subject: `${content.licenseName} 代`,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.registerFont('regular', regular);
  doc.registerFont('bold', bold);
  const width = doc.page.width - 112;
  const frame: Frame = { left: 56, width, right: 56 + width };
  drawHeading(doc, frame, content);
  drawAmount(doc, frame, content);
  drawBreakdown(doc, frame, content);
  drawPaymentAndIssuer(doc, frame, content);
  drawNotes(doc, frame, content);
  doc.end();
  return done;
}

/** Heading, with the re-issue or 控え mark top right, the receipt number and the issue date. */
function drawHeading(doc: Doc, { left, width, right }: Frame, content: ReceiptContent) {
  const copy = content.copy ?? null;
  const reissue = !copy && content.issueCount > 1;
  const unissued = copy !== null && content.issueCount === 0;
  doc.fillColor(INK).font('bold').fontSize(28).text('領 収 書', left, 64, { width, align: 'center', characterSpacing: 4 });
  if (reissue || copy) {
    const mark = copy ? '控え' : `再発行（${content.issueCount}回目）`;
    doc.font('bold').fontSize(11);
    const w = doc.widthOfString(mark) + 16;
    doc
      .lineWidth(1)
      .strokeColor('#b00020')
      .rect(right - w, 60, w, 22)
      .stroke();
    doc.fillColor('#b00020').text(mark, right - w, 65, { width: w, align: 'center' });
  }
  doc.fillColor(INK).font('regular').fontSize(10);
  doc.text(`領収書番号　${content.receiptNumber}`, left, 118, { width, align: 'right' });
  doc.text(`発行日　${unissued ? '未発行' : japanDate(content.issuedAt)}`, left, doc.y + 2, { width, align: 'right' });
}

/** Addressee, the amount box and the proviso. */
function drawAmount(doc: Doc, { left, width, right }: Frame, content: ReceiptContent) {
  const rate = receiptIssuer.taxRatePercent;
  doc
    .font('bold')
    .fontSize(18)
    .text(content.addressee || '（宛名未選択）', left, 160, { width: width * 0.65 });
  const underline = doc.y + 4;
  doc
    .lineWidth(1)
    .strokeColor(INK)
    .moveTo(left, underline)
    .lineTo(left + width * 0.65, underline)
    .stroke();
  const boxTop = underline + 28;
  doc.lineWidth(1.5).strokeColor(INK).rect(left, boxTop, width, 64).stroke();
  doc
    .font('regular')
    .fontSize(12)
    .text('金額', left + 20, boxTop + 25);
  doc
    .font('bold')
    .fontSize(26)
    .text(`${yen(content.amount)}-`, left + 80, boxTop + 14, { width: width - 220, align: 'center' });
  doc
    .font('regular')
    .fontSize(12)
    .text('（税込）', right - 130, boxTop + 25, { width: 110, align: 'right' });
  doc.font('regular').fontSize(12);
  doc.text(`但し　${content.proviso}`, left, boxTop + 84, { width });
  doc.text(`うち消費税（${rate}%）${yen(includedTax(content.amount))}`, left, doc.y + 4, { width });
  doc.text('上記正に領収いたしました。', left, doc.y + 4, { width });
}

/** 内訳 (one line: every licence carries the standard rate). */
function drawBreakdown(doc: Doc, { left, width, right }: Frame, content: ReceiptContent) {
  const rate = receiptIssuer.taxRatePercent;
  let y = doc.y + 24;
  doc.font('bold').fontSize(11).text('内訳', left, y);
  y = doc.y + 4;
  const cols = [left, left + width * 0.55, left + width * 0.7];
  const colWidths = [width * 0.55 - 8, width * 0.15 - 8, width * 0.3];
  const row = (cells: string[], font: 'regular' | 'bold') => {
    doc.font(font).fontSize(10).fillColor(INK);
    const top = y + 5;
    cells.forEach((cell, i) => {
      doc.text(cell, cols[i] as number, top, { width: colWidths[i] as number, align: i === 0 ? 'left' : 'right' });
    });
    y = Math.max(doc.y, top + 12) + 5;
    doc.lineWidth(0.5).strokeColor(RULE).moveTo(left, y).lineTo(right, y).stroke();
  };
  doc.lineWidth(0.5).strokeColor(RULE).moveTo(left, y).lineTo(right, y).stroke();
  row(['品目', '税率', '金額（税込）'], 'bold');
  row([content.licenseName, `${rate}%`, yen(content.amount)], 'regular');
  row([`${rate}%対象 合計`, '', yen(content.amount)], 'regular');
  row([`うち消費税（${rate}%）`, '', yen(includedTax(content.amount))], 'regular');
  doc.y = y;
}

/** The payment's facts, then the issuer lower right. */
function drawPaymentAndIssuer(doc: Doc, { left, width }: Frame, content: ReceiptContent) {
  let y = doc.y + 18;
  doc.font('regular').fontSize(10).fillColor(INK);
  const facts: [string, string][] = [['お支払日', japanDate(content.paidAt)]];
  if (content.orderNumber) facts.unshift(['注文番号', content.orderNumber]);
  const method = paymentMethodLabel(content.paymentMethod);
  if (method) facts.push(['お支払い方法', method]);
  for (const [term, detail] of facts) {
    doc.fillColor(MUTED).text(term, left, y, { width: 90 });
    doc.fillColor(INK).text(detail, left + 96, y, { width: width - 96 });
    y = doc.y + 4;
  }
  const issuerLeft = left + width * 0.5;
  const issuerWidth = width * 0.5;
  y += 24;
  doc.font('bold').fontSize(12).fillColor(INK).text(receiptIssuer.name, issuerLeft, y, { width: issuerWidth });
  doc.font('regular').fontSize(10);
  doc.text(receiptIssuer.address, issuerLeft, doc.y + 4, { width: issuerWidth });
  doc.text(receiptIssuer.contact, issuerLeft, doc.y + 2, { width: issuerWidth });
  doc.text(`登録番号　${receiptIssuer.registrationNumber}`, issuerLeft, doc.y + 2, { width: issuerWidth });
}

/** Notes, ending at the bottom margin (text below it would start a second page). */
function drawNotes(doc: Doc, { left, width }: Frame, content: ReceiptContent) {
  const copy = content.copy ?? null;
  const reissue = !copy && content.issueCount > 1;
  const unissued = copy !== null && content.issueCount === 0;
  const notes = ['この領収書は電子的に発行したものです。'];
  if (content.paymentMethod === 'konbini') {
    notes.push(
      'コンビニ払いのお支払いの証明は、店舗でお受け取りになった払込票控え（受領証）です。',
      'この領収書は、お客様のご依頼により当店が発行したものです。',
    );
  }
  if (reissue) {
    notes.push(`この領収書は再発行です（${content.issueCount}回目。初回発行日 ${japanDate(content.firstIssuedAt)}）。`);
  }
  if (copy) {
    notes.push(
      `この書類は管理者が表示した控えで、領収書として使用することはできません（表示日 ${japanDate(copy.printedAt)}）。`,
      unissued
        ? '会員への領収書は未発行です。'
        : `会員への発行回数 ${content.issueCount}回（初回発行日 ${japanDate(content.firstIssuedAt)}）。`,
    );
  }
  doc.font('regular').fontSize(9).fillColor(MUTED);
  const notesText = notes.join('\n');
  const notesTop = doc.page.height - 56 - doc.heightOfString(notesText, { width }) - 4;
  doc.text(notesText, left, notesTop, { width });
}
