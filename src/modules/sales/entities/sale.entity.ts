import { defineEntity, p } from '@mikro-orm/core';
import { createdAt, updatedAt } from '../../../db/columns.ts';
import { nameKeyColumn } from '../../../db/like.ts';

/** The seed fixes the numbers in the API and the CSV: this is the one place they are written down. */
export const SaleStatus = { AwaitingExport: 0, InProgress: 1, Registered: 2 } as const;
export type SaleStatus = (typeof SaleStatus)[keyof typeof SaleStatus];
export const SALE_STATUSES: readonly SaleStatus[] = [SaleStatus.AwaitingExport, SaleStatus.InProgress, SaleStatus.Registered];

export const SALE_STATUS_LABEL: Record<SaleStatus, string> = {
  [SaleStatus.AwaitingExport]: '出力待ち',
  [SaleStatus.InProgress]: '処理中',
  [SaleStatus.Registered]: '登録済み',
};

/** bank_transfer is accepted before any sale is paid that way (it then matches nothing). */
export const PAYMENT_METHODS = ['card', 'konbini', 'bank_transfer'] as const;
export const PAYMENT_METHOD_LABEL: Record<string, string> = {
  card: 'クレジットカード',
  konbini: 'コンビニ払い',
  bank_transfer: '銀行振込',
};

/** Buyer details are copied at purchase and stay when the account is deleted; other modules' ids without foreign keys. */
const SaleSchema = defineEntity({
  name: 'Sale',
  tableName: 'sales',
  indexes: [
    { name: 'sales_paid_at_index', expression: 'create index "sales_paid_at_index" on "sales" ("paid_at" desc, "id" desc)' },
    {
      name: 'sales_license_paid_at_index',
      expression: 'create index "sales_license_paid_at_index" on "sales" ("license_id", "paid_at" desc, "id" desc)',
    },
    {
      name: 'sales_license_status_paid_at_index',
      expression:
        'create index "sales_license_status_paid_at_index" on "sales" ("license_id", "status", "paid_at" desc, "id" desc)',
    },
    {
      name: 'sales_status_paid_at_index',
      expression: 'create index "sales_status_paid_at_index" on "sales" ("status", "paid_at" desc, "id" desc)',
    },
    // 売上集計's refunds of a period: refunded sales only.
    {
      name: 'sales_refunded_at_index',
      expression: 'create index "sales_refunded_at_index" on "sales" ("refunded_at") where "refunded_at" is not null',
    },
    {
      name: 'sales_buyer_name_key_trgm_index',
      expression: 'create index "sales_buyer_name_key_trgm_index" on "sales" using gin ("buyer_name_key" gin_trgm_ops)',
    },
    {
      name: 'sales_buyer_name_key_prefix_index',
      expression:
        'create index "sales_buyer_name_key_prefix_index" on "sales" ("buyer_name_key" text_pattern_ops) include ("id")',
    },
    {
      name: 'sales_buyer_first_key_prefix_index',
      expression:
        'create index "sales_buyer_first_key_prefix_index" on "sales" ("buyer_first_key" text_pattern_ops) include ("id")',
    },
    {
      name: 'sales_buyer_email_prefix_index',
      expression: 'create index "sales_buyer_email_prefix_index" on "sales" ("buyer_email" text_pattern_ops) include ("id")',
    },
    {
      name: 'sales_buyer_email_trgm_index',
      expression: 'create index "sales_buyer_email_trgm_index" on "sales" using gin ("buyer_email" gin_trgm_ops)',
    },
    // The sales list's お支払い方法 filter.
    {
      name: 'sales_payment_method_paid_at_index',
      expression: 'create index "sales_payment_method_paid_at_index" on "sales" ("payment_method", "paid_at" desc, "id" desc)',
    },
    // Order numbers are looked up exactly (the sales list's q, the payments inbox) and never repeat.
    {
      name: 'sales_order_number_unique',
      expression: 'create unique index "sales_order_number_unique" on "sales" ("order_number")',
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement(),
    // Nullable in the schema only (migration 20261126010000 says why NOT NULL waits).
    orderNumber: p.string().length(14).fieldName('order_number').nullable(),
    userId: p.string().length(255).fieldName('user_id').nullable().index('sales_user_id_index'),
    buyerLastName: p.string().length(50).fieldName('buyer_last_name'),
    buyerFirstName: p.string().length(50).fieldName('buyer_first_name'),
    buyerEmail: p.string().length(254).fieldName('buyer_email'),
    // The buyer's 姓名 normalised for search (see db/like.ts), kept by PostgreSQL.
    buyerNameKey: p.text().fieldName('buyer_name_key').generated(nameKeyColumn('buyer_last_name', 'buyer_first_name')).nullable(),
    buyerFirstKey: p.text().fieldName('buyer_first_key').generated(nameKeyColumn('buyer_first_name')).nullable(),
    buyerAffiliation: p.smallint().fieldName('buyer_affiliation').nullable(),
    buyerAffiliationName: p.string().length(100).fieldName('buyer_affiliation_name').default(''),
    buyerAffiliationOther: p.string().length(100).fieldName('buyer_affiliation_other').nullable(),
    licenseId: p.integer().fieldName('license_id'),
    licenseName: p.string().length(100).fieldName('license_name'),
    amount: p.integer(),
    currency: p.string().length(3),
    checkoutSessionId: p.uuid().fieldName('checkout_session_id').unique('sales_checkout_session_id_unique'),
    stripeSessionId: p.string().length(255).fieldName('stripe_session_id').unique('sales_stripe_session_id_unique'),
    stripePaymentIntentId: p
      .string()
      .length(255)
      .fieldName('stripe_payment_intent_id')
      .nullable()
      .index('sales_payment_intent_index'),
    receiptUrl: p.text().fieldName('receipt_url').nullable(),
    paidAt: p.datetime().fieldName('paid_at'),
    // From the checkout (CheckoutPaid): when it was ordered and how it was paid (card | konbini | bank_transfer).
    orderedAt: p.datetime().fieldName('ordered_at').nullable(),
    paymentMethod: p.string().length(32).fieldName('payment_method').default('card'),
    // Set when the whole amount is refunded; `refundedAmount` is what Stripe has confirmed so far.
    refundedAt: p.datetime().fieldName('refunded_at').nullable(),
    refundedAmount: p.integer().fieldName('refunded_amount').default(0),
    buyerGone: p.string().length(16).fieldName('buyer_gone').$type<'withdrew' | 'deleted'>().nullable(),
    // A full refund asked of Stripe from the back office (返金手続き中 until charge.refunded sets refundedAt).
    refundRequestedAt: p.datetime().fieldName('refund_requested_at').nullable(),
    refundRequestedBy: p.string().length(254).fieldName('refund_requested_by').nullable(),
    refundReason: p.string().length(200).fieldName('refund_reason').nullable(),
    status: p.smallint().$type<SaleStatus>().default(SaleStatus.AwaitingExport),
    // The open export batch that holds this sale (処理中 through it); a sale is in one open batch at most.
    batchId: p.uuid().fieldName('batch_id').nullable().index('sales_batch_id_index'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export class Sale extends SaleSchema.class {}
SaleSchema.setClass(Sale);
