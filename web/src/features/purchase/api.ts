import useSWR from 'swr';
import { type Answer, api, type RequestBody, type Schema } from '../../lib/api';

/** Stripe's konbini voucher: the payment numbers per chain, its page and the deadline. */
export type KonbiniVoucher = Schema<'KonbiniVoucher'>;
/** GET /api/checkout/sessions/{id}: the complete page waits on it for the sale. */
export type CheckoutStatus = Answer<'/api/checkout/sessions/{id}'>;

export const useLicenseSummary = (id: string | undefined) =>
  useSWR<Answer<'/api/licenses/{id}'>>(id ? `/api/licenses/${id}` : null);
export const useSales = (userId: string | undefined) =>
  useSWR<Answer<'/api/sales/user/{id}'>>(userId ? `/api/sales/user/${userId}` : null);

/** Starts Stripe Checkout: the payment page's address. */
export const startCheckout = (body: RequestBody<'/api/licenses/stripe', 'post'>) =>
  api<Answer<'/api/licenses/stripe', 'post'>>('/api/licenses/stripe', { method: 'POST', body });
