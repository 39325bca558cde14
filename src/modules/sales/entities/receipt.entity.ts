import { defineEntity, p } from '@mikro-orm/core';
import { createdAt, updatedAt } from '../../../db/columns.ts';

/**
 * Whom a receipt is made out to: the buyer's name (様), their organisation (御中), or a 宛名 the
 * member typed (`addresseeText`) with the honorific they chose.
 */
export const ADDRESSEE_KINDS = ['name', 'organisation', 'custom'] as const;
export type AddresseeKind = (typeof ADDRESSEE_KINDS)[number];
export const HONORIFICS = ['様', '御中'] as const;
export type Honorific = (typeof HONORIFICS)[number];
/** The 但し書き when the member typed none: 「但し ライセンス代として」. */
export const DEFAULT_PROVISO = 'ライセンス代として';

/**
 * The 領収書 of one sale. The addressee and 但し書き may be chosen until the first issue; the first
 * issue writes the addressee's text and fixes both. Every issue by the member counts: from the second
 * on the PDF says 「再発行」 (an administrator's 控え does not count). `paymentMethod` is Stripe's
 * payment method type, read once when known.
 */
const SaleReceiptSchema = defineEntity({
  name: 'SaleReceipt',
  tableName: 'sale_receipts',
  properties: {
    saleId: p.integer().fieldName('sale_id').primary().autoincrement(false),
    addresseeKind: p.string().length(16).fieldName('addressee_kind'),
    addressee: p.string().length(120).nullable(),
    /** The typed 宛名 (kind `custom`), without its honorific. */
    addresseeText: p.string().length(60).fieldName('addressee_text').nullable(),
    honorific: p.string().length(4).nullable(),
    /** The 但し書き; null prints DEFAULT_PROVISO. */
    proviso: p.string().length(40).nullable(),
    paymentMethod: p.string().length(32).fieldName('payment_method').nullable(),
    issueCount: p.integer().fieldName('issue_count').default(0),
    firstIssuedAt: p.datetime().fieldName('first_issued_at').nullable(),
    lastIssuedAt: p.datetime().fieldName('last_issued_at').nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export class SaleReceipt extends SaleReceiptSchema.class {}
SaleReceiptSchema.setClass(SaleReceipt);
