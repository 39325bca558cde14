import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../../db/columns.ts';

/**
 * One comparison of the Checkout Sessions Stripe reports with our sales. `slot` makes the nightly run
 * happen once per night however many workers receive the scheduled job; manual runs have none.
 * state: queued → running → done | failed. A run with findings, or failed, is mailed to the administrators
 * (`notified`) and shown on the admin menu until acknowledged (確認済み).
 */
const ReconciliationRunSchema = defineEntity({
  name: 'ReconciliationRun',
  tableName: 'reconciliation_runs',
  indexes: [
    {
      name: 'reconciliation_runs_created_at_index',
      expression: 'create index "reconciliation_runs_created_at_index" on "reconciliation_runs" ("created_at" desc)',
    },
  ],
  properties: {
    id: p.uuid().primary(),
    trigger: p.string().length(20),
    slot: p.string().length(40).nullable().unique('reconciliation_runs_slot_unique'),
    requestedBy: p.string().length(254).fieldName('requested_by').nullable(),
    days: p.integer(),
    state: p.string().length(20).default('queued'),
    startedAt: p.datetime().fieldName('started_at').nullable(),
    finishedAt: p.datetime().fieldName('finished_at').nullable(),
    sessionsChecked: p.integer().fieldName('sessions_checked').default(0),
    salesChecked: p.integer().fieldName('sales_checked').default(0),
    refundsChecked: p.integer().fieldName('refunds_checked').default(0),
    findings: p.integer().default(0),
    error: p.text().nullable(),
    // What the administrators were told by mail: 'findings' or 'failed' (one digest per outcome of a run).
    notified: p.string().length(20).nullable(),
    // 確認済み: an administrator has seen the differences (or the failure); the admin menu stops showing it.
    acknowledgedAt: p.datetime().fieldName('acknowledged_at').nullable(),
    acknowledgedBy: p.string().length(254).fieldName('acknowledged_by').nullable(),
    acknowledgementNote: p.string().length(500).fieldName('acknowledgement_note').nullable(),
    createdAt: createdAt(),
  },
});
export class ReconciliationRun extends ReconciliationRunSchema.class {}
ReconciliationRunSchema.setClass(ReconciliationRun);

/**
 * A difference one run found. kind: paid_without_sale, sale_without_payment, amount_mismatch,
 * refund_not_recorded. Ids point at Stripe's objects, our sale and the inbox event to replay.
 */
const PaymentFindingSchema = defineEntity({
  name: 'PaymentFinding',
  tableName: 'payment_findings',
  properties: {
    id: p.uuid().primary(),
    runId: p.uuid().fieldName('run_id').index('payment_findings_run_index'),
    kind: p.string().length(40),
    stripeSessionId: p.string().length(255).fieldName('stripe_session_id').nullable(),
    paymentIntentId: p.string().length(255).fieldName('payment_intent_id').nullable(),
    saleId: p.integer().fieldName('sale_id').nullable(),
    eventId: p.string().length(255).fieldName('event_id').nullable(),
    stripeAmount: p.integer().fieldName('stripe_amount').nullable(),
    stripeCurrency: p.string().length(3).fieldName('stripe_currency').nullable(),
    ourAmount: p.integer().fieldName('our_amount').nullable(),
    ourCurrency: p.string().length(3).fieldName('our_currency').nullable(),
    detail: p.text(),
    // 確認済み: an administrator looked at this difference and noted what was done (required note).
    acknowledgedAt: p.datetime().fieldName('acknowledged_at').nullable(),
    acknowledgedBy: p.string().length(254).fieldName('acknowledged_by').nullable(),
    acknowledgementNote: p.string().length(500).fieldName('acknowledgement_note').nullable(),
    createdAt: createdAt(),
  },
});
export class PaymentFinding extends PaymentFindingSchema.class {}
PaymentFindingSchema.setClass(PaymentFinding);
