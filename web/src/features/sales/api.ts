import useSWR from 'swr';

export interface AdminSale {
  id: number;
  license_id: number;
  license_name: string;
  amount: number;
  status: number;
  status_label: string;
  paid_at: string;
  refunded_at: string | null;
  user: { first_name: string; last_name: string; email: string };
  user_id: string | null;
  buyer_affiliation: number | null;
  buyer_affiliation_name: string;
}

export interface SalePage {
  sales: AdminSale[];
  total: number;
  page: number;
  per_page: number;
}

export interface ExportState {
  id: string;
  state: 'queued' | 'running' | 'done' | 'failed';
  row_count: number;
  download_url: string | null;
  error: string | null;
}

export const useSalesSearch = (params: URLSearchParams) => useSWR<SalePage>(`/api/sales?${params.toString()}`);
export const useLicenseOptions = () =>
  useSWR<{ licenses: { id: number; name: string }[] }>('/api/licenses?per_page=100&sort=name');
export const useExport = (id: string | null) =>
  useSWR<{ export: ExportState }>(id ? `/api/exports/${id}` : null, {
    refreshInterval: (latest) => (latest && ['done', 'failed'].includes(latest.export.state) ? 0 : 1000),
  });
