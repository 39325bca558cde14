import useSWR from 'swr';
import { type Answer, api, type RequestBody, type Schema } from '../../lib/api';

export type InboxEvent = Schema<'PaymentEvent'>;
export type Reconciliation = Schema<'Reconciliation'>;
export type Finding = Answer<'/api/payments/reconciliations/{id}'>['findings'][number];

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
  return useSWR<Answer<'/api/payments/events'>>(`/api/payments/events?${query}`);
}

/** Runs, polled while one is queued or running. */
export function useReconciliations(page: number) {
  return useSWR<Answer<'/api/payments/reconciliations'>>(`/api/payments/reconciliations?page=${page}&per_page=5`, {
    refreshInterval: (latest) =>
      latest?.reconciliations.some((run) => run.state === 'queued' || run.state === 'running') ? 1_500 : 0,
  });
}

export function useReconciliation(id: string | null) {
  return useSWR<Answer<'/api/payments/reconciliations/{id}'>>(id ? `/api/payments/reconciliations/${id}` : null);
}

/** 再処理: the event as it stands after the replay. */
export const replayEvent = (id: string) =>
  api<Answer<'/api/payments/events/{id}/replay', 'post'>>(`/api/payments/events/${id}/replay`, { method: 'POST' });
/** 照合する: a run over the last `days` days (queued; the list polls it). */
export const startReconciliation = (body: RequestBody<'/api/payments/reconciliations', 'post'>) =>
  api<Answer<'/api/payments/reconciliations', 'post'>>('/api/payments/reconciliations', { method: 'POST', body });
export const acknowledgeFinding = (id: string, body: RequestBody<'/api/payments/findings/{id}/acknowledge', 'post'>) =>
  api<Answer<'/api/payments/findings/{id}/acknowledge', 'post'>>(`/api/payments/findings/${id}/acknowledge`, {
    method: 'POST',
    body,
  });
/** この支払いを返金: a payment kept without a sale, refunded in full at Stripe. */
export const refundFlaggedPayment = (sessionId: string, body: RequestBody<'/api/payments/sessions/{id}/refund', 'post'>) =>
  api<Answer<'/api/payments/sessions/{id}/refund', 'post'>>(`/api/payments/sessions/${sessionId}/refund`, {
    method: 'POST',
    body,
  });
