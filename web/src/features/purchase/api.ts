import useSWR from 'swr';
import { type Answer, api, type RequestBody, type Schema } from '../../lib/api';
import { PENDING_REFRESH_MS } from './components/payment-settled-notice';

/** Stripe's konbini voucher: the payment numbers per chain, its page and the deadline. */
export type KonbiniVoucher = Schema<'KonbiniVoucher'>;
/** GET /api/checkout/sessions/{id}: the complete page waits on it for the sale. */
export type CheckoutStatus = Answer<'/api/checkout/sessions/{id}'>;

const SETTLED = new Set(['complete', 'expired', 'payment_failed', 'flagged', 'failed']);

/** The complete page waits for the webhook to make the sale; a konbini payment or transfer may take days, watched more calmly. */
export const useCheckoutStatus = (sessionId: string | null) =>
  useSWR<CheckoutStatus>(sessionId ? `/api/checkout/sessions/${encodeURIComponent(sessionId)}` : null, {
    refreshInterval: (latest) =>
      latest && SETTLED.has(latest.state) && (latest.state !== 'complete' || latest.sale_id)
        ? 0
        : latest?.state === 'awaiting_payment'
          ? PENDING_REFRESH_MS
          : 2000,
  });

export const useLicenseSummary = (id: string | undefined) =>
  useSWR<Answer<'/api/licenses/{id}'>>(id ? `/api/licenses/${id}` : null);
/** 購入済み / お支払い待ち per licence, for the procedure page's state on load. */
export const useHoldings = (userId: string | undefined) => useSWR<Answer<'/api/me/holdings'>>(userId ? '/api/me/holdings' : null);
export const useSales = (userId: string | undefined) =>
  useSWR<Answer<'/api/sales/user/{id}'>>(userId ? `/api/sales/user/${userId}` : null);

/** Starts Stripe Checkout: the payment page's address. */
export const startCheckout = (body: RequestBody<'/api/licenses/stripe', 'post'>) =>
  api<Answer<'/api/licenses/stripe', 'post'>>('/api/licenses/stripe', { method: 'POST', body });

/** GET /api/users/{id}/orders/{order_number}: one order as the member reads it. */
export type MemberOrder = Answer<'/api/users/{id}/orders/{order_number}'>['order'];
/** Asked again while its payment is awaited (until the first answer too), no more once it is settled. */
export const useOrder = (userId: string | undefined, orderNumber: string | undefined) =>
  useSWR<Answer<'/api/users/{id}/orders/{order_number}'>>(
    userId && orderNumber ? `/api/users/${userId}/orders/${encodeURIComponent(orderNumber)}` : null,
    { refreshInterval: (latest) => (!latest || latest.order.state === 'awaiting_payment' ? PENDING_REFRESH_MS : 0) },
  );
