import useSWR from 'swr';
import type { SaleStatus } from './api';

export interface OrderBuyer {
  last_name: string;
  first_name: string;
  email: string;
  affiliation: number | null;
  affiliation_label: string;
  affiliation_name: string;
  affiliation_other: string | null;
}

interface OrderHistoryItem {
  at: string;
  kind: 'paid' | 'move' | 'audit' | 'refund_requested' | 'refunded';
  label: string;
  from_status: number | null;
  to_status: number | null;
  actor_email: string | null;
  reason: string | null;
}

export interface OrderMail {
  id: string;
  kind: string;
  kind_label: string;
  recipient: string;
  subject: string;
  status: 'sending' | 'sent' | 'failed';
  permanent: boolean;
  sent_at: string | null;
  failed_at: string | null;
  created_at: string;
}

type RefundState = 'none' | 'requested' | 'refunded';

interface OrderRefund {
  state: RefundState;
  state_label: string;
  requested_at: string | null;
  requested_by: string | null;
  reason: string | null;
  refunded_at: string | null;
}

/** GET /api/sales/{id}: one order as the back office reads it. */
export interface OrderDetail {
  id: number;
  order_number: string | null;
  license_id: number;
  license_name: string;
  amount: number;
  tax: number;
  status: SaleStatus;
  status_label: string;
  paid_at: string;
  refunded_at: string | null;
  user_id: string | null;
  stripe_session_id: string;
  stripe_payment_intent_id: string | null;
  payment_method: 'card' | 'konbini' | null;
  payment_method_label: string;
  konbini_expires_at: string | null;
  ordered_at: string | null;
  exported: boolean;
  refund: OrderRefund;
  buyer_at_purchase: OrderBuyer;
  buyer_now: (OrderBuyer & { id: string }) | null;
  receipt: {
    issue_count: number;
    first_issued_at: string | null;
    last_issued_at: string | null;
    addressee: string | null;
    proviso: string | null;
  };
  history: OrderHistoryItem[];
  mails: OrderMail[];
}

/** The order detail; polled while a refund is under way, until Stripe's webhook confirms it (返金済み). */
export const useOrderDetail = (id: string) =>
  useSWR<{ sale: OrderDetail }>(`/api/sales/${encodeURIComponent(id)}`, {
    refreshInterval: (latest) => (latest?.sale.refund.state === 'requested' ? 2000 : 0),
  });

/** The order detail's address: every sales row, export warning and payments-inbox row links here. */
export const orderDetailPath = (saleId: number) => `/admin/sales/${saleId}`;
