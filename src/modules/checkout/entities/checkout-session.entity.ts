import { defineEntity, p } from '@mikro-orm/core';
import type Stripe from 'stripe';
import { createdAt, updatedAt } from '../../../db/columns.ts';

export interface KonbiniStoreCode {
  store: 'familymart' | 'lawson' | 'ministop' | 'seicomart';
  paymentCode: string;
  confirmationNumber: string | null;
}

/** The virtual account Stripe gave a bank transfer (a zengin financial address). */
export interface BankTransferAccount {
  bankName: string;
  bankCode: string;
  branchName: string;
  branchCode: string;
  accountType: string;
  accountNumber: string;
  accountHolderName: string;
  amountRemaining: number;
  reference: string | null;
  hostedInstructionsUrl: string | null;
}

/** `flagged`: Stripe's amount or currency did not match what we asked for, never fulfilled. */
const CheckoutSessionSchema = defineEntity({
  name: 'CheckoutSession',
  tableName: 'checkout_sessions',
  indexes: [
    {
      name: 'checkout_sessions_konbini_reminder_index',
      expression:
        'create index "checkout_sessions_konbini_reminder_index" on "checkout_sessions" ("konbini_expires_at") where "state" = \'awaiting_payment\' and "konbini_reminded_at" is null',
    },
    {
      name: 'checkout_sessions_bank_transfer_index',
      expression:
        'create index "checkout_sessions_bank_transfer_index" on "checkout_sessions" ("bank_transfer_expires_at") where "state" = \'awaiting_payment\' and "bank_transfer_expires_at" is not null',
    },
    {
      name: 'checkout_sessions_konbini_index',
      expression:
        'create index "checkout_sessions_konbini_index" on "checkout_sessions" ("state", "konbini_expires_at") where "konbini_expires_at" is not null',
    },
  ],
  properties: {
    id: p.uuid().primary(),
    // Other modules' records, by id only (UserDeleted empties userId).
    userId: p.string().length(255).fieldName('user_id').nullable().index('checkout_sessions_user_id_index'),
    licenseId: p.integer().fieldName('license_id').index('checkout_sessions_license_id_index'),
    amount: p.integer(),
    currency: p.string().length(3),
    stripeSessionId: p
      .string()
      .length(255)
      .fieldName('stripe_session_id')
      .nullable()
      .unique('checkout_sessions_stripe_session_id_unique'),
    paymentIntentId: p.string().length(255).fieldName('payment_intent_id').nullable(),
    state: p.string().length(20).default('open'),
    flagReason: p.text().fieldName('flag_reason').nullable(),
    distribution: p.boolean().default(true),
    konbiniVoucherUrl: p.text().fieldName('konbini_voucher_url').nullable(),
    konbiniExpiresAt: p.datetime().fieldName('konbini_expires_at').nullable(),
    konbiniStores: p.json<KonbiniStoreCode[]>().fieldName('konbini_stores').nullable(),
    // The reminder mail the day before the deadline was put on record (once per checkout).
    konbiniRemindedAt: p.datetime().fieldName('konbini_reminded_at').nullable(),
    holdUntil: p.datetime().fieldName('hold_until').nullable(),
    // Given when the checkout is created; the sale made from it keeps it (decision 0046).
    orderNumber: p.string().length(20).fieldName('order_number').nullable().unique('checkout_sessions_order_number_unique'),
    bankTransfer: p.json<BankTransferAccount>().fieldName('bank_transfer').nullable(),
    bankTransferExpiresAt: p.datetime().fieldName('bank_transfer_expires_at').nullable(),
    bankTransferRemindedAt: p.datetime().fieldName('bank_transfer_reminded_at').nullable(),
    // A flagged payment (held already, full, hidden) refunded from the back office or Stripe's dashboard.
    refundRequestedAt: p.datetime().fieldName('refund_requested_at').nullable(),
    refundRequestedBy: p.string().length(254).fieldName('refund_requested_by').nullable(),
    refundReason: p.string().length(200).fieldName('refund_reason').nullable(),
    refundedAt: p.datetime().fieldName('refunded_at').nullable(),
    refundedAmount: p.integer().fieldName('refunded_amount').default(0),
    stripeRefundId: p.string().length(255).fieldName('stripe_refund_id').nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export class CheckoutSession extends CheckoutSessionSchema.class {}

CheckoutSessionSchema.setClass(CheckoutSession);

/** The Stripe Customer of a member (bank transfers credit its balance), created once and kept. */
const CheckoutCustomerSchema = defineEntity({
  name: 'CheckoutCustomer',
  tableName: 'checkout_customers',
  properties: {
    userId: p.string().length(255).fieldName('user_id').primary(),
    stripeCustomerId: p
      .string()
      .length(255)
      .fieldName('stripe_customer_id')
      .unique('checkout_customers_stripe_customer_id_unique'),
    createdAt: p.datetime().fieldName('created_at'),
  },
});
export class CheckoutCustomer extends CheckoutCustomerSchema.class {}
CheckoutCustomerSchema.setClass(CheckoutCustomer);

/** Every verified Stripe event, stored once by its id; a failed one is still retried and replayable. */
const StripeEventSchema = defineEntity({
  name: 'StripeEvent',
  tableName: 'stripe_events',
  indexes: [
    {
      name: 'stripe_events_received_at_index',
      expression: 'create index "stripe_events_received_at_index" on "stripe_events" ("received_at" desc, "id" desc)',
    },
    {
      name: 'stripe_events_unprocessed_index',
      expression:
        'create index "stripe_events_unprocessed_index" on "stripe_events" ("received_at") where "processed_at" is null',
    },
  ],
  properties: {
    id: p.string().length(255).primary(),
    type: p.string().length(100),
    payload: p.json<Stripe.Event>(),
    receivedAt: p
      .datetime()
      .fieldName('received_at')
      .onCreate(() => new Date()),
    processedAt: p.datetime().fieldName('processed_at').nullable(),
    outcome: p.text().nullable(),
    attempts: p.integer().default(0),
    failedAt: p.datetime().fieldName('failed_at').nullable(),
    lastError: p.text().fieldName('last_error').nullable(),
    stripeSessionId: p.string().length(255).fieldName('stripe_session_id').nullable().index('stripe_events_session_index'),
  },
});
export class StripeEvent extends StripeEventSchema.class {}
StripeEventSchema.setClass(StripeEvent);
