import * as v from 'valibot';
import { operation, pageEntries, timestamp } from '../../http/openapi.ts';
import { paging } from '../../http/validate.ts';

const DOCUMENTS = ['見積書・請求書'];
const nullableText = v.nullable(v.string());
const Member = v.nullable(v.object({ first_name: v.string(), last_name: v.string(), email: v.string() }));

/** The back office's search of issued documents: a number (from its start), a member's name or e-mail, or the 宛名's words. */
export const DocumentListQuery = v.object({
  q: v.optional(
    v.pipe(v.string('検索語が正しくありません。'), v.trim(), v.maxLength(254, '検索語は254文字以内で入力してください。')),
  ),
  ...paging,
});

const QuotationAnswer = v.pipe(
  v.object({
    quotation_number: v.string(),
    issued_at: timestamp(),
    expires_at: timestamp(),
    user_id: nullableText,
    /** The member as they are now; null once the account is gone. */
    user: Member,
    license_id: v.number(),
    license_name: v.string(),
    /** Whole yen, tax included. */
    amount: v.number(),
    /** With its honorific, as printed; null for quotations issued before it was kept. */
    addressee: nullableText,
  }),
  v.metadata({ ref: 'Quotation' }),
);

const InvoiceAnswer = v.pipe(
  v.object({
    invoice_number: v.string(),
    order_number: v.string(),
    issued_at: timestamp(),
    due_at: timestamp(),
    user_id: nullableText,
    user: Member,
    license_name: v.string(),
    amount: v.number(),
    addressee: v.string(),
    /** The member's downloads (an administrator's are audited, not counted). */
    downloads: v.number(),
    last_downloaded_at: timestamp(),
  }),
  v.metadata({ ref: 'Invoice' }),
);

const listEntries = { ...pageEntries, total_capped: v.boolean(), members_capped: v.boolean() };
const numberPath = (what: string) => ({ number: v.pipe(v.string(), v.maxLength(40), v.description(what)) });

export const issuedDocumentDocs = {
  quotations: operation('get', {
    summary: '発行された御見積書の一覧（新しい順、見積番号の前方一致、宛名、会員の氏名・メールアドレスで検索）',
    tags: DOCUMENTS,
    access: 'admin',
    permission: 'sales:read',
    query: DocumentListQuery,
    answers: { 200: v.object({ quotations: v.array(QuotationAnswer), ...listEntries }) },
  }),
  invoices: operation('get', {
    summary: '発行された御請求書の一覧（新しい順、請求書番号・注文番号の前方一致、宛名、会員の氏名・メールアドレスで検索）',
    tags: DOCUMENTS,
    access: 'admin',
    permission: 'sales:read',
    query: DocumentListQuery,
    answers: { 200: v.object({ invoices: v.array(InvoiceAnswer), ...listEntries }) },
  }),
  quotationPdf: operation('get', {
    summary: '発行済みの御見積書の PDF をもう一度（管理者、操作履歴に記録）',
    tags: DOCUMENTS,
    access: 'admin',
    permission: 'sales:read',
    path: numberPath('見積番号'),
    answers: { 200: { media: 'application/pdf', description: '御見積書の PDF' } },
  }),
  invoicePdf: operation('get', {
    summary: '発行済みの御請求書の PDF をもう一度（管理者、操作履歴に記録、ダウンロード回数には数えない）',
    tags: DOCUMENTS,
    access: 'admin',
    permission: 'sales:read',
    path: numberPath('請求書番号'),
    answers: { 200: { media: 'application/pdf', description: '御請求書の PDF' } },
    errors: [409],
  }),
};
