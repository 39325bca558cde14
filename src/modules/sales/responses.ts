import * as v from 'valibot';
import { operation, pageEntries, pathIds, timestamp } from '../../http/openapi.ts';
import { MailAnswer } from '../mail/index.ts';
import {
  CountsQuery,
  ExportInput,
  PageQuery,
  PreflightQuery,
  RefundInput,
  RevertInput,
  SalesListQuery,
  StatusUpdateInput,
} from './schemas.ts';
import { SummaryEncodingQuery, SummaryQuery } from './summary.ts';

const nullableText = v.nullable(v.string());
const nullableTime = v.nullable(timestamp());

/** 0 出力待ち, 1 処理中, 2 登録済み: the words come with the answers (`status_label`, the counts' `statuses`). */
const SaleStatusAnswer = v.picklist([0, 1, 2]);

/** A sale as the back office sees it (saleDto); `status` 0 出力待ち, 1 処理中, 2 登録済み. */
export const SaleAnswer = v.pipe(
  v.object({
    id: v.number(),
    order_number: nullableText,
    license_id: v.number(),
    license_name: v.string(),
    amount: v.number(),
    currency: v.string(),
    status: SaleStatusAnswer,
    status_label: v.string(),
    paid_at: timestamp(),
    refunded_at: nullableTime,
    refund_requested_at: nullableTime,
    refunded_amount: v.number(),
    payment_method: v.string(),
    payment_method_label: v.string(),
    receipt_url: nullableText,
    user: v.object({ first_name: v.string(), last_name: v.string(), email: v.string() }),
    user_id: nullableText,
    buyer_affiliation: v.nullable(v.number()),
    buyer_affiliation_name: nullableText,
    buyer_affiliation_other: nullableText,
    buyer_gone: v.nullable(v.picklist(['withdrew', 'deleted'])),
    /** The seed's camelCase spelling, kept beside license_id for its SPA. */
    licenseId: v.number(),
  }),
  v.metadata({ ref: 'Sale' }),
);

const SalesWithMessage = v.object({ sales: v.array(SaleAnswer), message: v.string() });

/** A CSV export for the training-management system (exportDto). */
const ExportAnswer = v.pipe(
  v.object({
    id: v.string(),
    state: v.picklist(['queued', 'running', 'done', 'failed']),
    batch: v.boolean(),
    row_count: v.number(),
    total_rows: v.nullable(v.number()),
    encoding: v.picklist(['utf-8', 'shift_jis']),
    replace_unmappable: v.boolean(),
    filters: v.record(v.string(), v.unknown()),
    license_name: nullableText,
    error: nullableText,
    last_error: nullableText,
    last_error_at: nullableTime,
    retrying: v.boolean(),
    sha256: nullableText,
    requested_by: nullableText,
    created_at: timestamp(),
    finished_at: nullableTime,
    completed_at: nullableTime,
    completed_by: nullableText,
    /** The process (INSTANCE_ID) that runs or last ran the build. */
    worker_instance: nullableText,
    open_count: v.nullable(v.number()),
    file_name: v.string(),
    download_url: nullableText,
  }),
  v.metadata({ ref: 'Export' }),
);

const totals = {
  count: v.number(),
  amount: v.number(),
  tax: v.number(),
  refunded_count: v.number(),
  refunded_amount: v.number(),
};
const SummaryAnswer = v.object({
  summary: v.object({
    from: v.string(),
    to: v.string(),
    ...totals,
    refunded_tax: v.number(),
    net_amount: v.number(),
    net_tax: v.number(),
    by_license: v.array(v.object({ license_id: v.number(), name: v.string(), ...totals })),
  }),
});

/** 領収書: what has been issued and what the member may choose (receiptDto). */
const RefundAnswer = v.object({
  state: v.picklist(['none', 'requested', 'partially_refunded', 'refunded']),
  state_label: v.string(),
  requested_at: nullableTime,
  requested_by: nullableText,
  reason: nullableText,
  refunded_at: nullableTime,
  refunded_amount: v.number(),
  pending_amount: v.number(),
  remaining_amount: v.number(),
  refunds: v.array(
    v.object({
      id: v.number(),
      amount: v.number(),
      reason: nullableText,
      requested_by: nullableText,
      requested_at: nullableTime,
      refunded_at: nullableTime,
    }),
  ),
});

const buyer = {
  last_name: v.string(),
  first_name: v.string(),
  email: v.string(),
  affiliation: v.nullable(v.number()),
  affiliation_label: v.string(),
  affiliation_name: v.string(),
  affiliation_other: nullableText,
};

/** GET /api/sales/{id}: the order detail (saleDetail); the host adds how it was paid. */
export const SaleDetailAnswer = v.object({
  ...SaleAnswer.entries,
  tax: v.number(),
  stripe_session_id: v.string(),
  stripe_payment_intent_id: nullableText,
  exported: v.boolean(),
  refund: RefundAnswer,
  buyer_at_purchase: v.object(buyer),
  buyer_now: v.nullable(v.object({ id: v.string(), ...buyer })),
  receipt: v.object({
    issue_count: v.number(),
    first_issued_at: nullableTime,
    last_issued_at: nullableTime,
    addressee: nullableText,
    proviso: nullableText,
  }),
  history: v.array(
    v.object({
      at: timestamp(),
      kind: v.picklist(['paid', 'move', 'audit', 'refund_requested', 'refunded']),
      label: v.string(),
      from_status: v.nullable(v.number()),
      to_status: v.nullable(v.number()),
      actor_email: nullableText,
      reason: nullableText,
    }),
  ),
  mails: v.array(MailAnswer),
});

const csv = { media: 'text/csv', description: 'CSV ファイル' };
const SALES = ['売上'];
const EXPORTS = ['エクスポート'];
const sale = { id: pathIds.number };
const exportId = { id: pathIds.uuid };
const counts = v.object({
  awaiting: v.number(),
  in_progress: v.number(),
  registered: v.number(),
  refunded: v.number(),
  export_awaiting: v.number(),
  export_in_progress: v.number(),
});

export const salesDocs = {
  list: operation('get', {
    summary: '売上の一覧',
    tags: SALES,
    access: 'admin',
    permission: 'sales:read',
    query: SalesListQuery,
    answers: {
      200: v.object({ sales: v.array(SaleAnswer), ...pageEntries, total_capped: v.boolean(), members_capped: v.boolean() }),
    },
    // `audit_id` naming no entry of the audit log.
    errors: [404],
  }),
  counts: operation('get', {
    summary: '状態ごとの売上件数',
    tags: SALES,
    access: 'admin',
    permission: 'sales:read',
    query: CountsQuery,
    answers: {
      200: v.object({ counts, statuses: v.array(v.object({ value: SaleStatusAnswer, label: v.string() })) }),
    },
  }),
  licenseCounts: operation('get', {
    summary: 'ライセンスごとの売上件数',
    tags: SALES,
    access: 'admin',
    permission: 'sales:read',
    answers: {
      200: v.object({ counts: v.array(v.object({ license_id: v.number(), count: v.number(), refunded_count: v.number() })) }),
    },
  }),
  update: operation('post', {
    summary: '売上の状態を1段階進める',
    tags: SALES,
    access: 'admin',
    permission: 'sales:update',
    body: StatusUpdateInput,
    answers: { 200: SalesWithMessage },
    errors: [409],
  }),
  revert: operation('post', {
    summary: '売上の状態を1段階戻す',
    tags: SALES,
    access: 'admin',
    permission: 'sales:update',
    body: RevertInput,
    answers: { 200: SalesWithMessage },
    errors: [409],
  }),
  summary: operation('get', {
    summary: '売上集計',
    tags: SALES,
    access: 'admin',
    permission: 'sales:read',
    query: SummaryQuery,
    answers: { 200: SummaryAnswer },
  }),
  summaryCsv: operation('get', {
    summary: '売上集計の CSV',
    tags: SALES,
    access: 'admin',
    permission: 'sales:read',
    query: v.intersect([SummaryQuery, SummaryEncodingQuery]),
    answers: { 200: csv },
  }),
  refund: operation('post', {
    summary: '売上を返金する（Stripe に依頼）',
    tags: SALES,
    access: 'admin',
    permission: 'sales:refund',
    path: sale,
    body: RefundInput,
    answers: {
      200: v.object({
        sale: SaleAnswer,
        refund: RefundAnswer,
        message: v.string(),
      }),
    },
    errors: [409],
  }),
};

export const exportDocs = {
  list: operation('get', {
    summary: 'エクスポートの履歴',
    tags: EXPORTS,
    access: 'admin',
    permission: 'exports:read',
    query: PageQuery,
    answers: {
      200: v.object({
        exports: v.array(ExportAnswer),
        ...pageEntries,
        group_name: nullableText,
        workers_alive: v.nullable(v.boolean()),
      }),
    },
  }),
  preflight: operation('get', {
    summary: 'エクスポート前の確認（Shift_JIS で表せない文字など）',
    tags: EXPORTS,
    access: 'admin',
    permission: 'exports:read',
    query: PreflightQuery,
    answers: {
      200: v.object({
        problems: v.array(
          v.object({
            sale_id: v.number(),
            order_number: nullableText,
            field: v.string(),
            text: v.string(),
            characters: v.array(v.string()),
          }),
        ),
        total: v.number(),
      }),
    },
  }),
  create: operation('post', {
    summary: 'CSV エクスポートを依頼する',
    tags: EXPORTS,
    access: 'admin',
    permission: 'exports:run',
    body: ExportInput,
    answers: { 202: v.object({ export: ExportAnswer }) },
    errors: [409],
  }),
  show: operation('get', {
    summary: 'エクスポートの状態',
    tags: EXPORTS,
    access: 'admin',
    permission: 'exports:read',
    path: exportId,
    answers: { 200: v.object({ export: ExportAnswer, workers_alive: v.nullable(v.boolean()) }) },
  }),
  complete: operation('post', {
    summary: '一括処理の売上を登録済みにする',
    tags: EXPORTS,
    access: 'admin',
    permission: 'exports:run',
    path: exportId,
    answers: { 200: v.object({ export: ExportAnswer, moved: v.number(), message: v.string() }) },
    errors: [409],
  }),
  retry: operation('post', {
    summary: '失敗したエクスポートを再実行する',
    tags: EXPORTS,
    access: 'admin',
    permission: 'exports:run',
    path: exportId,
    answers: { 202: v.object({ export: ExportAnswer, message: v.string() }) },
    errors: [409],
  }),
  download: operation('get', {
    summary: 'エクスポートした CSV をダウンロードする',
    tags: EXPORTS,
    access: 'admin',
    permission: 'exports:download',
    path: exportId,
    answers: { 200: csv },
    errors: [409],
  }),
};
