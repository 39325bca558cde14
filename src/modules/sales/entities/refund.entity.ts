import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../../db/columns.ts';

/**
 * One refund of a sale, whole or partial: asked from the back office (reason, who, when) and
 * confirmed by Stripe's charge.refunded (`refundedAt`), or made in Stripe's dashboard (no request).
 * 売上集計 and 受注CSV count confirmed refunds by `refundedAt`.
 */
const SaleRefundSchema = defineEntity({
  name: 'SaleRefund',
  tableName: 'sale_refunds',
  indexes: [
    {
      name: 'sale_refunds_refunded_at_index',
      expression:
        'create index "sale_refunds_refunded_at_index" on "sale_refunds" ("refunded_at") where "refunded_at" is not null',
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement(),
    saleId: p.integer().fieldName('sale_id').index('sale_refunds_sale_id_index'),
    amount: p.integer(),
    reason: p.string().length(200).nullable(),
    requestedBy: p.string().length(254).fieldName('requested_by').nullable(),
    requestedAt: p.datetime().fieldName('requested_at').nullable(),
    refundedAt: p.datetime().fieldName('refunded_at').nullable(),
    stripeRefundId: p.string().length(255).fieldName('stripe_refund_id').nullable(),
    createdAt: createdAt(),
  },
});
export class SaleRefund extends SaleRefundSchema.class {}
SaleRefundSchema.setClass(SaleRefund);
