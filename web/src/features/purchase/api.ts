import useSWR from 'swr';

export interface Sale {
  id: number;
  license_id: number;
  license_name: string;
  amount: number;
  status: number;
  status_label: string;
  paid_at: string;
  refunded_at: string | null;
  receipt_url: string | null;
}

export interface CheckoutStatus {
  state: 'open' | 'awaiting_payment' | 'complete' | 'expired' | 'payment_failed' | 'flagged' | 'failed';
  license_id: number;
  sale_id: number | null;
}

export interface LicenseSummary {
  license: { id: number; name: string; price: number; description: string; pictures: { thumbnail_url: string }[] };
}

export const useLicenseSummary = (id: string | undefined) => useSWR<LicenseSummary>(id ? `/api/licenses/${id}` : null);
export const useSales = (userId: string | undefined) => useSWR<{ sales: Sale[] }>(userId ? `/api/sales/user/${userId}` : null);
