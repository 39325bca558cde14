import useSWR from 'swr';
import { type Answer, api, type RequestBody } from '../../lib/api';

/** GET /api/mails/summary: counted in the database, so the figures survive Redis losing its data. */
export function useMailSummary() {
  return useSWR<Answer<'/api/mails/summary'>>('/api/mails/summary');
}

/** A reconciliation run with differences or a failure nobody has marked 確認済み yet. */
export type FlaggedRun = Answer<'/api/payments/reconciliations'>['reconciliations'][number];

const FLAGGED_RUNS = '/api/payments/reconciliations?unacknowledged=true&per_page=10';

export function useFlaggedRuns() {
  return useSWR<Answer<'/api/payments/reconciliations'>>(FLAGGED_RUNS);
}

/** 確認済みにする for a whole run. */
export const acknowledgeRun = (id: string, body: RequestBody<'/api/payments/reconciliations/{id}/acknowledge', 'post'>) =>
  api<Answer<'/api/payments/reconciliations/{id}/acknowledge', 'post'>>(`/api/payments/reconciliations/${id}/acknowledge`, {
    method: 'POST',
    body,
  });

export type Dashboard = Answer<'/api/dashboard'>;

/** GET /api/dashboard: today's and this month's figures (JST), what waits, 30 days by day. */
export function useDashboard() {
  return useSWR<Dashboard>('/api/dashboard');
}
