import useSWR from 'swr';

/**
 * A sale's fulfilment state as the API numbers it (the seed's 0/1/2; the server's one mapping is
 * SaleStatus in src/modules/sales/entities/sale.entity.ts): the screens name the states, never the numbers.
 */
export const SaleStatus = { AwaitingExport: 0, InProgress: 1, Registered: 2 } as const;
export type SaleStatus = (typeof SaleStatus)[keyof typeof SaleStatus];
export const SALE_STATUS_OPTIONS = [
  { value: String(SaleStatus.AwaitingExport), label: '出力待ち' },
  { value: String(SaleStatus.InProgress), label: '処理中' },
  { value: String(SaleStatus.Registered), label: '登録済み' },
  // The three states list the sales that stand; refunded ones are found here (as the counters count them).
  { value: 'refunded', label: '返金済み' },
];

export interface AdminSale {
  id: number;
  /** 注文番号 (`LS-2611-7K3Q9M`). */
  order_number: string | null;
  license_id: number;
  license_name: string;
  amount: number;
  status: SaleStatus;
  status_label: string;
  paid_at: string;
  refunded_at: string | null;
  /** A refund asked of Stripe from the order detail, not yet confirmed (返金手続き中). */
  refund_requested_at?: string | null;
  user: { first_name: string; last_name: string; email: string };
  user_id: string | null;
  buyer_affiliation: number | null;
  buyer_affiliation_name: string;
  /** Why the buyer's account is gone: 退会 (`withdrew`), deleted by an administrator (`deleted`), or unknown. */
  buyer_gone?: 'withdrew' | 'deleted' | null;
}

export interface SalePage {
  sales: AdminSale[];
  total: number;
  /** More than `total` match: the list says 「10,000件以上」. */
  total_capped: boolean;
  /** The name search matched more members than it looks through (1,000): the screen asks for more characters. */
  members_capped?: boolean;
  page: number;
  per_page: number;
}

export interface SaleCounts {
  awaiting: number;
  in_progress: number;
  registered: number;
  refunded: number;
  /** What a CSV would write of each state: not refunded, no refund under way. */
  export_awaiting: number;
  export_in_progress: number;
}

export interface ExportState {
  id: string;
  state: 'queued' | 'running' | 'done' | 'failed';
  batch: boolean;
  row_count: number;
  total_rows: number | null;
  encoding: 'utf-8' | 'shift_jis';
  replace_unmappable: boolean;
  filters: Record<string, unknown>;
  license_name: string | null;
  error: string | null;
  /** The job's last failed attempt while it is retried (kept on a failed export as its last reason). */
  last_error: string | null;
  last_error_at: string | null;
  /** The last attempt failed and the job will try again: 「作成に失敗しています（再試行中）」. */
  retrying: boolean;
  sha256: string | null;
  requested_by: string | null;
  created_at: string;
  finished_at: string | null;
  completed_at: string | null;
  completed_by: string | null;
  /** The process (INSTANCE_ID) that runs or last ran the build. */
  worker_instance: string | null;
  /** A batch's sales still 処理中 (null when not a batch): with none, 「登録済みにする」 is not offered. */
  open_count: number | null;
  file_name: string;
  download_url: string | null;
}

export interface ExportHistory {
  exports: ExportState[];
  total: number;
  page: number;
  per_page: number;
  group_name: string | null;
  /** Whether a worker process (which builds exports) has a fresh heartbeat; null: unknown. */
  workers_alive: boolean | null;
}

export interface Unmappable {
  sale_id: number;
  /** 注文番号 of the sale (the warning links to its order detail). */
  order_number?: string | null;
  field: string;
  text: string;
  characters: string[];
}

export const useSalesSearch = (params: URLSearchParams) => useSWR<SalePage>(`/api/sales?${params.toString()}`);
export const useSaleCounts = (params: URLSearchParams) => {
  const query = new URLSearchParams();
  for (const key of ['license_id', 'q', 'paid_from', 'paid_to', 'audit_id']) {
    const value = params.get(key);
    if (value) query.set(key, value);
  }
  return useSWR<{ counts: SaleCounts }>(`/api/sales/counts?${query.toString()}`);
};
export const useLicenseOptions = () =>
  useSWR<{ licenses: { id: number; name: string }[] }>('/api/licenses?per_page=100&sort=name');
/** The export history; polled while an export is still being written. */
export const useExportHistory = (page: number) =>
  useSWR<ExportHistory>(`/api/exports?page=${page}&per_page=10`, {
    refreshInterval: (latest) => (latest?.exports.some((e) => e.state === 'queued' || e.state === 'running') ? 1000 : 0),
  });
