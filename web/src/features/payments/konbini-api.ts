import useSWR from 'swr';

export type KonbiniListState = 'awaiting' | 'lapsed';

export interface KonbiniPayment {
  checkout_id: string;
  state: KonbiniListState;
  state_label: string;
  amount: number;
  currency: string;
  ordered_at: string;
  expires_at: string;
  /** When it lapsed (Stripe's notice, or the deadline when none has come yet). */
  lapsed_at: string | null;
  license_id: number;
  license_name: string;
  user_id: string | null;
  user: { last_name: string; first_name: string; email: string } | null;
}

export interface KonbiniPage {
  konbini_payments: KonbiniPayment[];
  state: KonbiniListState;
  total: number;
  totals: Record<KonbiniListState, number>;
  page: number;
  per_page: number;
}

/** GET /api/payments/pending-konbini: konbini payments awaited, or lapsed unpaid. */
export const usePendingKonbini = (state: KonbiniListState, page: number) =>
  useSWR<KonbiniPage>(`/api/payments/pending-konbini?${new URLSearchParams({ state, page: String(page) })}`);
