import useSWR, { mutate } from 'swr';

import { type Answer, api, type RequestBody, type Schema } from '../../lib/api';

/**
 * A sale's fulfilment state as the API numbers it (the seed's 0/1/2; the server's one mapping is
 * SaleStatus in src/modules/sales/entities/sale.entity.ts, which also gives the words: `status_label`
 * on each sale, `statuses` with the counts): the screens name the states, never the numbers.
 */
export const SaleStatus = { AwaitingExport: 0, InProgress: 1, Registered: 2 } as const satisfies Record<
  string,
  Schema<'Sale'>['status']
>;
export type SaleStatus = Schema<'Sale'>['status'];

export type AdminSale = Schema<'Sale'>;
type SalePage = Answer<'/api/sales'>;
type CountsAnswer = Answer<'/api/sales/counts'>;
export type SaleCounts = CountsAnswer['counts'];
export type SaleStatusLabels = CountsAnswer['statuses'];
export type ExportState = Schema<'Export'>;
type ExportHistory = Answer<'/api/exports'>;
export type Unmappable = Answer<'/api/exports/preflight'>['problems'][number];

/** The status filter's choices: the server's words for the three states, then 返金済み (counted apart). */
export const saleStatusOptions = (statuses: SaleStatusLabels | undefined) => [
  ...(statuses ?? []).map((s) => ({ value: String(s.value), label: s.label })),
  // The three states list the sales that stand; refunded ones are found here (as the counters count them).
  { value: 'refunded', label: '返金済み' },
];

/** The server's word for a state (empty until the counts have come). */
export const statusLabel = (statuses: SaleStatusLabels | undefined, status: SaleStatus) =>
  statuses?.find((s) => s.value === status)?.label ?? '';

export const useSalesSearch = (params: URLSearchParams) => useSWR<SalePage>(`/api/sales?${params.toString()}`);
export const useSaleCounts = (params: URLSearchParams) => {
  const query = new URLSearchParams();
  for (const key of ['license_id', 'q', 'paid_from', 'paid_to', 'audit_id']) {
    const value = params.get(key);
    if (value) query.set(key, value);
  }
  return useSWR<CountsAnswer>(`/api/sales/counts?${query.toString()}`);
};
export const useLicenseOptions = () => useSWR<Answer<'/api/licenses'>>('/api/licenses?per_page=100&sort=name');
/** The export history; polled while an export is still being written. */
export const useExportHistory = (page: number) =>
  useSWR<ExportHistory>(`/api/exports?page=${page}&per_page=10`, {
    refreshInterval: (latest) => (latest?.exports.some((e) => e.state === 'queued' || e.state === 'running') ? 1000 : 0),
  });

/** 処理中にする・登録済みにする (the selected sales, or the search with its confirmed count). */
export const advanceSales = (body: RequestBody<'/api/sales/update', 'post'>) =>
  api<Answer<'/api/sales/update', 'post'>>('/api/sales/update', { method: 'POST', body });
/** 差し戻す: one step back, with the reason. */
export const revertSales = (body: RequestBody<'/api/sales/revert', 'post'>) =>
  api<Answer<'/api/sales/revert', 'post'>>('/api/sales/revert', { method: 'POST', body });
/** 返金 (asked of Stripe; the webhook confirms it). */
export const refundSale = (id: number, body: RequestBody<'/api/sales/{id}/refund', 'post'>) =>
  api<Answer<'/api/sales/{id}/refund', 'post'>>(`/api/sales/${id}/refund`, { method: 'POST', body });

/** Before a Shift_JIS export: the cells CP932 cannot hold. */
export const exportPreflight = (query: URLSearchParams) =>
  api<Answer<'/api/exports/preflight'>>(`/api/exports/preflight?${query.toString()}`);
/** Every page of 作成履歴 read again: a status move can finish a batch (its 登録済みにする then goes). */
export const refreshExportHistory = () => mutate((key) => typeof key === 'string' && key.startsWith('/api/exports?'));

export const requestExport = (body: RequestBody<'/api/exports', 'post'>) =>
  api<Answer<'/api/exports', 'post'>>('/api/exports', { method: 'POST', body });
export const completeExport = (id: string) =>
  api<Answer<'/api/exports/{id}/complete', 'post'>>(`/api/exports/${id}/complete`, { method: 'POST' });
export const retryExport = (id: string) =>
  api<Answer<'/api/exports/{id}/retry', 'post'>>(`/api/exports/${id}/retry`, { method: 'POST' });
