import useSWR from 'swr';

export interface Sale {
  id: number;
  /** 注文番号 (`LS-2611-7K3Q9M`): what the member quotes when they call. */
  order_number: string | null;
  license_id: number;
  license_name: string;
  amount: number;
  status: number;
  status_label: string;
  paid_at: string;
  refunded_at: string | null;
  receipt_url: string | null;
  /** What the member reads: お支払い済み（登録準備中）, 登録手続き中, 登録完了, 返金済み. */
  member_state: 'paid' | 'in_progress' | 'registered' | 'refunded';
  member_state_label: string;
}

/** Stripe's konbini voucher: the payment numbers per chain, its page and the deadline. */
export interface KonbiniVoucher {
  url: string | null;
  expires_at: string;
  stores: { store: string; label: string; payment_code: string; confirmation_number: string | null }[];
}

/** A konbini order that is not a sale: awaiting payment (with its voucher) or lapsed unpaid. */
export interface KonbiniOrder {
  checkout_id: string;
  license_id: number;
  license_name: string;
  amount: number;
  ordered_at: string;
  state: 'awaiting_payment' | 'expired';
  state_label: string;
  voucher: KonbiniVoucher | null;
  expires_at: string | null;
}

export interface CheckoutStatus {
  state: 'open' | 'awaiting_payment' | 'complete' | 'expired' | 'payment_failed' | 'flagged' | 'failed';
  license_id: number;
  sale_id: number | null;
  /** Yen, tax included (総額表示). */
  amount: number;
  order_number: string | null;
  konbini: KonbiniVoucher | null;
}

export interface LicenseSummary {
  license: { id: number; name: string; price: number; description: string; pictures: { thumbnail_url: string }[] };
}

export const useLicenseSummary = (id: string | undefined) => useSWR<LicenseSummary>(id ? `/api/licenses/${id}` : null);
export const useSales = (userId: string | undefined) =>
  useSWR<{ sales: Sale[]; konbini_orders: KonbiniOrder[] }>(userId ? `/api/sales/user/${userId}` : null);
