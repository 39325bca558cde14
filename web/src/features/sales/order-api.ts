import useSWR from 'swr';
import type { Answer } from '../../lib/api';

/** GET /api/sales/{id}: one order as the back office reads it. */
export type OrderDetail = Answer<'/api/sales/{id}'>['sale'];
export type OrderBuyer = OrderDetail['buyer_at_purchase'];
export type OrderMail = OrderDetail['mails'][number];

/** The order detail; polled while a refund is under way, until Stripe's webhook confirms it (返金済み). */
export const useOrderDetail = (id: string) =>
  useSWR<Answer<'/api/sales/{id}'>>(`/api/sales/${encodeURIComponent(id)}`, {
    refreshInterval: (latest) => (latest?.sale.refund.state === 'requested' ? 2000 : 0),
  });

/** The order detail's address: every sales row, export warning and payments-inbox row links here. */
export const orderDetailPath = (saleId: number) => `/admin/sales/${saleId}`;
