import { defineEntity, p } from '@mikro-orm/core';
import { createdAt, updatedAt } from '../../../db/columns.ts';

/** Whom a receipt is made out to: the buyer's name (様) or their organisation (御中). */
export const ADDRESSEE_KINDS = ['name', 'organisation'] as const;
export type AddresseeKind = (typeof ADDRESSEE_KINDS)[number];

/**
 * The 領収書 of one sale. The addressee may be chosen until the first issue; the first issue writes
 * the addressee's text and fixes it. Every issue (member or administrator) counts: from the second
 * on the PDF says 「再発行」. `paymentMethod` is Stripe's payment method type, read once when known.
 */
export const SaleReceiptSchema = defineEntity({
  name: 'SaleReceipt',
  tableName: 'sale_receipts',
  properties: {
    saleId: p.integer().fieldName('sale_id').primary().autoincrement(false),
    addresseeKind: p.string().length(16).fieldName('addressee_kind'),
    addressee: p.string().length(120).nullable(),
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
