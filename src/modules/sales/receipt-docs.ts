import * as v from 'valibot';
import { MessageAnswer, operation, pathIds, timestamp } from '../../http/openapi.ts';
import { ADDRESSEE_KINDS, HONORIFICS } from './entities/receipt.entity.ts';
import { AddresseeInput, ReceiptCopyMailInput } from './schemas.ts';

const nullableText = v.nullable(v.string());
const nullableTime = v.nullable(timestamp());
const RECEIPTS = ['領収書'];
const sale = { id: pathIds.number };

const ReceiptAnswer = v.pipe(
  v.object({
    sale_id: v.number(),
    order_number: nullableText,
    receipt_number: v.string(),
    license_name: v.string(),
    issued: v.boolean(),
    issue_count: v.number(),
    first_issued_at: nullableTime,
    addressee_kind: v.nullable(v.picklist(ADDRESSEE_KINDS)),
    addressee: nullableText,
    addressee_text: nullableText,
    honorific: v.nullable(v.picklist(HONORIFICS)),
    proviso: v.string(),
    default_proviso: v.string(),
    options: v.array(v.object({ value: v.picklist(['name', 'organisation']), label: v.string() })),
    honorifics: v.array(v.picklist(HONORIFICS)),
    payment_method: nullableText,
    konbini: v.boolean(),
    copy_only: v.boolean(),
  }),
  v.metadata({ ref: 'Receipt' }),
);

export const receiptDocs = {
  state: operation('get', {
    summary: '領収書の宛名と発行状況',
    tags: RECEIPTS,
    access: 'member',
    path: sale,
    answers: { 200: ReceiptAnswer },
    errors: [403, 409],
  }),
  choose: operation('put', {
    summary: '領収書の宛名を選ぶ',
    tags: RECEIPTS,
    access: 'member',
    path: sale,
    body: AddresseeInput,
    answers: { 200: v.object({ receipt: ReceiptAnswer, message: v.string() }) },
    errors: [403, 409],
  }),
  pdf: operation('get', {
    summary: '領収書の PDF（管理者は控え）',
    tags: RECEIPTS,
    access: 'member',
    path: sale,
    query: v.object({ copy: v.optional(v.picklist(['1'])) }),
    answers: {
      200: {
        media: 'application/pdf',
        description: '領収書の PDF',
        headers: { 'X-Receipt-Issue-Count': '発行回数' },
      },
    },
    errors: [403, 409, 429],
  }),
  mailCopy: operation('post', {
    summary: '領収書の控えを指定のメールアドレスへ送る（退会した会員の依頼など）',
    tags: RECEIPTS,
    access: 'admin',
    permission: 'members:update',
    path: sale,
    body: ReceiptCopyMailInput,
    answers: { 202: MessageAnswer },
    errors: [409],
  }),
};
