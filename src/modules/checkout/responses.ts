import * as v from 'valibot';
import { operation, pageEntries, pathIds, timestamp } from '../../http/openapi.ts';
import {
  AcknowledgeInput,
  EventsQuery,
  FindingAcknowledgeInput,
  FlaggedRefundInput,
  PendingQuery,
  ReconcileInput,
  RunsQuery,
  StartInput,
} from './schemas.ts';

const nullableText = v.nullable(v.string());
const nullableTime = v.nullable(timestamp());
const nullableNumber = v.nullable(v.number());

/** A konbini payment slip as the buyer sees it (voucherView). */
export const KonbiniVoucherAnswer = v.pipe(
  v.object({
    url: nullableText,
    expires_at: timestamp(),
    stores: v.array(
      v.object({ store: v.string(), label: v.string(), payment_code: v.string(), confirmation_number: nullableText }),
    ),
  }),
  v.metadata({ ref: 'KonbiniVoucher' }),
);

/** A bank transfer's virtual account, amount and deadline as the buyer sees them (bankTransferView). */
export const BankTransferAnswer = v.pipe(
  v.object({
    bank_name: v.string(),
    bank_code: v.string(),
    branch_name: v.string(),
    branch_code: v.string(),
    account_type: v.string(),
    account_type_label: v.string(),
    account_number: v.string(),
    account_holder_name: v.string(),
    amount: v.number(),
    reference: nullableText,
    instructions_url: nullableText,
    expires_at: timestamp(),
  }),
  v.metadata({ ref: 'BankTransfer' }),
);

/** A payment kept without a sale (held already, full, hidden): its refund from the shop. */
const FlaggedRefund = v.object({
  state: v.picklist(['refundable', 'requested', 'refunded']),
  amount: v.number(),
  currency: v.string(),
  order_number: nullableText,
  flag_reason: v.string(),
  requested_at: nullableTime,
  requested_by: nullableText,
  reason: nullableText,
  refunded_at: nullableTime,
  refunded_amount: v.number(),
});

/** One Stripe event of the payments inbox. */
const InboxEvent = v.pipe(
  v.object({
    id: v.string(),
    type: v.string(),
    type_label: v.string(),
    state: v.picklist(['received', 'processed', 'failed']),
    received_at: timestamp(),
    processed_at: nullableTime,
    failed_at: nullableTime,
    attempts: v.number(),
    outcome: nullableText,
    outcome_label: nullableText,
    error: nullableText,
    stripe_session_id: nullableText,
    order_number: nullableText,
    amount: nullableNumber,
    currency: nullableText,
    buyer: v.nullable(v.object({ user_id: v.string(), name: v.string(), email: v.string() })),
    buyer_deleted: v.boolean(),
    sale_id: nullableNumber,
    /** On the event of a payment kept without a sale: its refund (「この支払いを返金」). */
    refund: v.nullable(FlaggedRefund),
  }),
  v.metadata({ ref: 'PaymentEvent' }),
);

/** One reconciliation run (runView). */
const Run = v.pipe(
  v.object({
    id: v.string(),
    trigger: v.string(),
    trigger_label: v.string(),
    requested_by: nullableText,
    days: v.number(),
    state: v.picklist(['queued', 'running', 'done', 'failed']),
    state_label: v.string(),
    created_at: timestamp(),
    started_at: nullableTime,
    finished_at: nullableTime,
    sessions_checked: v.number(),
    sales_checked: v.number(),
    refunds_checked: v.number(),
    findings: v.number(),
    open_findings: v.number(),
    error: nullableText,
    needs_attention: v.boolean(),
    notified: nullableText,
    acknowledged_at: nullableTime,
    acknowledged_by: nullableText,
    acknowledgement_note: nullableText,
  }),
  v.metadata({ ref: 'Reconciliation' }),
);

const acknowledgement = { acknowledged_at: nullableTime, acknowledged_by: nullableText, acknowledgement_note: nullableText };

const Finding = v.object({
  id: v.string(),
  kind: v.string(),
  kind_label: v.string(),
  stripe_session_id: nullableText,
  payment_intent_id: nullableText,
  sale_id: nullableNumber,
  sale_order_number: nullableText,
  sale_user_id: nullableText,
  sale_buyer_email: nullableText,
  event_id: nullableText,
  stripe_amount: nullableNumber,
  stripe_currency: nullableText,
  our_amount: nullableNumber,
  our_currency: nullableText,
  detail: v.string(),
  ...acknowledgement,
  /** The payment's refund when it was kept for one (支払い済みなのに売上がない), else null. */
  refund: v.nullable(FlaggedRefund),
});

const KonbiniPayment = v.object({
  checkout_id: v.string(),
  order_number: nullableText,
  payment_method: v.picklist(['konbini', 'bank_transfer']),
  payment_method_label: v.string(),
  state: v.picklist(['awaiting', 'lapsed']),
  state_label: v.string(),
  amount: v.number(),
  currency: v.string(),
  ordered_at: timestamp(),
  expires_at: timestamp(),
  lapsed_at: nullableTime,
  license_id: v.number(),
  license_name: v.string(),
  user_id: nullableText,
  user: v.nullable(v.object({ last_name: v.string(), first_name: v.string(), email: v.string() })),
});

const PAYMENTS = ['決済'];
const PURCHASE = ['購入'];
const eventId = { id: v.pipe(v.string(), v.regex(/^evt_[A-Za-z0-9_]{1,250}$/)) };
const runId = { id: pathIds.uuid };
const sessionId = { id: v.pipe(v.string(), v.regex(/^cs_[A-Za-z0-9_]{1,250}$/)) };

export const checkoutDocs = {
  start: operation('post', {
    summary: 'Stripe Checkout を始める（支払いページの URL）',
    description:
      '409 の `code`: `sold_out`（満席）、`not_on_sale`（販売期間外）、`already_purchased`（購入済み）、`payment_pending`（お支払い待ちの注文あり）、`superseded`（同じライセンスの手続きが別の画面で始め直された）。同じライセンスの開いている手続きは Stripe で期限切れにしてから新しい手続きを作ります。その確認が Stripe からとれないときは 503（時間をおいて再試行）。',
    tags: PURCHASE,
    access: 'member',
    body: StartInput,
    answers: { 200: v.object({ url: v.string() }) },
    errors: [403, 404, 409, 429],
  }),
  status: operation('get', {
    summary: '購入手続きの状態（完了画面が売上の記録を待つ）',
    tags: PURCHASE,
    access: 'member',
    path: { id: v.string() },
    answers: {
      200: v.object({
        state: v.string(),
        license_id: v.number(),
        amount: v.number(),
        currency: v.string(),
        sale_id: nullableNumber,
        order_number: nullableText,
        konbini: v.nullable(KonbiniVoucherAnswer),
        bank_transfer: v.nullable(BankTransferAnswer),
      }),
    },
  }),
  webhook: operation('post', {
    summary: 'Stripe の Webhook（署名付き、生の本文）',
    tags: PAYMENTS,
    access: 'public',
    csrfExempt: true,
    raw: 'application/json',
    headers: { 'Stripe-Signature': 'Stripe の署名（t= と v1=）' },
    answers: { 200: v.object({ received: v.literal(true), duplicate: v.boolean() }) },
    errors: [400],
  }),
};

export const paymentDocs = {
  events: operation('get', {
    summary: 'Stripe イベントの受信箱',
    tags: PAYMENTS,
    access: 'admin',
    permission: 'payments:read',
    query: EventsQuery,
    answers: { 200: v.object({ events: v.array(InboxEvent), ...pageEntries, workers_alive: v.nullable(v.boolean()) }) },
  }),
  event: operation('get', {
    summary: 'Stripe イベントの詳細（受信した本文つき）',
    tags: PAYMENTS,
    access: 'admin',
    permission: 'payments:read',
    path: eventId,
    answers: { 200: v.object({ event: v.object({ ...InboxEvent.entries, payload: v.unknown() }) }) },
  }),
  replay: operation('post', {
    summary: 'Stripe イベントを再実行する',
    tags: PAYMENTS,
    access: 'admin',
    permission: 'payments:update',
    path: eventId,
    answers: { 200: v.object({ event: InboxEvent }) },
  }),
  runs: operation('get', {
    summary: '決済の照合の履歴',
    tags: PAYMENTS,
    access: 'admin',
    permission: 'payments:read',
    query: RunsQuery,
    answers: { 200: v.object({ reconciliations: v.array(Run), ...pageEntries }) },
  }),
  run: operation('get', {
    summary: '照合の結果と差異',
    tags: PAYMENTS,
    access: 'admin',
    permission: 'payments:read',
    path: runId,
    answers: { 200: v.object({ reconciliation: Run, findings: v.array(Finding) }) },
  }),
  acknowledgeRun: operation('post', {
    summary: '照合を確認済みにする',
    tags: PAYMENTS,
    access: 'admin',
    permission: 'payments:update',
    path: runId,
    body: AcknowledgeInput,
    answers: { 200: v.object({ reconciliation: Run, message: v.string() }) },
    errors: [409],
  }),
  acknowledgeFinding: operation('post', {
    summary: '差異を確認済みにする',
    tags: PAYMENTS,
    access: 'admin',
    permission: 'payments:update',
    path: runId,
    body: FindingAcknowledgeInput,
    answers: {
      200: v.object({
        finding: v.object({ id: v.string(), ...acknowledgement }),
        run_acknowledged: v.boolean(),
        message: v.string(),
      }),
    },
    errors: [409],
  }),
  refundFlagged: operation('post', {
    summary: '売上にしなかった支払い（購入済み・満席・非公開）を返金する',
    description:
      'Checkout Session の支払い全額を Stripe で返金します（冪等: 二度目の依頼でも返金は一度）。409 の `code`: `became_sale`（売上になった）、`already_refunded`（返金済み）、`not_refundable`、`no_payment_intent`、`stripe_refused`、`refund_in_progress`（同じ依頼を Stripe が処理中）。Stripe に接続できないときは 503。',
    tags: PAYMENTS,
    access: 'admin',
    permission: 'sales:refund',
    path: sessionId,
    body: FlaggedRefundInput,
    answers: {
      200: v.object({
        payment: v.object({ stripe_session_id: v.string(), ...FlaggedRefund.entries }),
        message: v.string(),
      }),
    },
    errors: [404, 409, 503],
  }),
  reconcile: operation('post', {
    summary: '照合を実行する',
    tags: PAYMENTS,
    access: 'admin',
    permission: 'payments:update',
    body: ReconcileInput,
    answers: { 202: v.object({ reconciliation: Run }) },
    errors: [409],
  }),
  pendingKonbini: operation('get', {
    summary: 'コンビニ決済・銀行振込のお支払い待ち・期限切れ',
    tags: PAYMENTS,
    access: 'admin',
    permission: 'payments:read',
    query: PendingQuery,
    answers: {
      200: v.object({
        konbini_payments: v.array(KonbiniPayment),
        state: v.picklist(['awaiting', 'lapsed']),
        totals: v.object({ awaiting: v.number(), lapsed: v.number() }),
        ...pageEntries,
      }),
    },
  }),
};
