import useSWR from 'swr';

/** GET /api/mails/summary: counted in the database, so the figures survive Redis losing its data. */
export interface MailSummary {
  /** Refused for good by the mail server (SMTP 5xx) and not resent since. */
  failed_for_good: number;
  /** Still 「送信中」 longer than the claim lease (a sender died, its job lost). */
  stuck: number;
  /** Failing for now, retried automatically. */
  retrying: number;
  lease_seconds: number;
}

export function useMailSummary() {
  return useSWR<{ summary: MailSummary }>('/api/mails/summary');
}

/** A reconciliation run with differences or a failure nobody has marked 確認済み yet. */
export interface FlaggedRun {
  id: string;
  trigger_label: string;
  days: number;
  state: 'queued' | 'running' | 'done' | 'failed';
  state_label: string;
  created_at: string;
  started_at: string | null;
  findings: number;
  /** Findings not yet marked 確認済み one by one. */
  open_findings?: number;
  error: string | null;
}

const FLAGGED_RUNS = '/api/payments/reconciliations?unacknowledged=true&per_page=10';

export function useFlaggedRuns() {
  return useSWR<{ reconciliations: FlaggedRun[]; total: number }>(FLAGGED_RUNS);
}
