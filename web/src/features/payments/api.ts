import useSWR from 'swr';

export interface InboxEvent {
  id: string;
  type: string;
  type_label: string;
  state: 'received' | 'processed' | 'failed';
  received_at: string;
  processed_at: string | null;
  failed_at: string | null;
  attempts: number;
  outcome: string | null;
  outcome_label: string | null;
  error: string | null;
  stripe_session_id: string | null;
  /** 注文番号 of the sale this event's Checkout Session made. */
  order_number: string | null;
  /** The amount of the event's Checkout Session (ours; Stripe's for a session we never made). */
  amount: number | null;
  currency: string | null;
  /** The member who paid, as they are now; null when unknown or deleted (`buyer_deleted`). */
  buyer: { user_id: string; name: string; email: string } | null;
  buyer_deleted: boolean;
  /** That sale's id: the row links to its order detail (/admin/sales/{id}). */
  sale_id?: number | null;
}

export interface Reconciliation {
  id: string;
  trigger: string;
  trigger_label: string;
  requested_by: string | null;
  days: number;
  state: 'queued' | 'running' | 'done' | 'failed';
  state_label: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  sessions_checked: number;
  sales_checked: number;
  refunds_checked: number;
  findings: number;
  /** Findings not yet marked 確認済み one by one. */
  open_findings: number;
  error: string | null;
  /** Differences or a failure not yet marked 確認済み (shown on the admin menu). */
  needs_attention: boolean;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
}

export interface Finding {
  id: string;
  kind: string;
  kind_label: string;
  stripe_session_id: string | null;
  payment_intent_id: string | null;
  sale_id: number | null;
  sale_order_number: string | null;
  sale_user_id: string | null;
  sale_buyer_email: string | null;
  event_id: string | null;
  stripe_amount: number | null;
  stripe_currency: string | null;
  our_amount: number | null;
  our_currency: string | null;
  detail: string;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  acknowledgement_note: string | null;
}

export const EVENT_STATES = [
  { value: 'received', label: '未処理' },
  { value: 'processed', label: '処理済み' },
  { value: 'failed', label: '失敗' },
];

export const EVENT_TYPES = [
  { value: 'checkout.session.completed', label: '決済手続きの完了' },
  { value: 'checkout.session.async_payment_succeeded', label: 'コンビニ決済の入金' },
  { value: 'checkout.session.async_payment_failed', label: 'コンビニ決済の失敗（期限切れ）' },
  { value: 'checkout.session.expired', label: '決済ページの期限切れ' },
  { value: 'charge.refunded', label: '返金' },
];

export const EVENT_FILTERS = ['type', 'state', 'session', 'order_number', 'from', 'to'] as const;

export function useInbox(params: URLSearchParams) {
  const query = new URLSearchParams();
  for (const key of [...EVENT_FILTERS, 'page']) {
    const value = params.get(key);
    if (value) query.set(key, value);
  }
  return useSWR<{ events: InboxEvent[]; total: number; page: number; per_page: number }>(`/api/payments/events?${query}`);
}

/** Runs, polled while one is queued or running. */
export function useReconciliations(page: number) {
  return useSWR<{ reconciliations: Reconciliation[]; total: number; page: number; per_page: number }>(
    `/api/payments/reconciliations?page=${page}&per_page=5`,
    {
      refreshInterval: (latest) =>
        latest?.reconciliations.some((run) => run.state === 'queued' || run.state === 'running') ? 1_500 : 0,
    },
  );
}

export function useReconciliation(id: string | null) {
  return useSWR<{ reconciliation: Reconciliation; findings: Finding[] }>(id ? `/api/payments/reconciliations/${id}` : null);
}
