import { db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';

/** What payment reconciliation compares of a sale with Stripe's Checkout Session. */
export interface SalePayment {
  id: number;
  orderNumber: string | null;
  stripeSessionId: string;
  paymentIntentId: string | null;
  amount: number;
  currency: string;
  /** As the database's text (timestamps are read as text). */
  paidAt: string;
  refundedAt: string | null;
  userId: string | null;
  buyerEmail: string;
}

const COLUMNS = [
  'id',
  'order_number as orderNumber',
  'stripe_session_id as stripeSessionId',
  'stripe_payment_intent_id as paymentIntentId',
  'amount',
  'currency',
  'paid_at as paidAt',
  'refunded_at as refundedAt',
  'user_id as userId',
  'buyer_email as buyerEmail',
] as const;

/** Sales paid since `since` (the reconciliation window), oldest first. */
export function salePaymentsSince(em: Em, since: Date): Promise<SalePayment[]> {
  return kysely(em)
    .selectFrom('sales')
    .select(COLUMNS)
    .where('paid_at', '>=', since.toISOString())
    .orderBy('paid_at')
    .orderBy('id')
    .execute();
}

async function salesWhereIn(
  em: Em,
  column: 'stripe_session_id' | 'stripe_payment_intent_id' | 'id',
  values: readonly (string | number)[],
): Promise<SalePayment[]> {
  const found: SalePayment[] = [];
  for (let at = 0; at < values.length; at += 500) {
    const chunk = values.slice(at, at + 500);
    found.push(
      ...(await kysely(em)
        .selectFrom('sales')
        .select(COLUMNS)
        .where((eb) => eb(eb.ref(column), 'in', chunk as never[]))
        .execute()),
    );
  }
  return found;
}

/** Sales of these Checkout Sessions. */
export const salePaymentsOfSessions = (em: Em, sessionIds: readonly string[]) =>
  salesWhereIn(em, 'stripe_session_id', sessionIds);

/** Sales paid through these PaymentIntents. */
export const salePaymentsOfPaymentIntents = (em: Em, paymentIntentIds: readonly string[]) =>
  salesWhereIn(em, 'stripe_payment_intent_id', paymentIntentIds);

/** These sales (the reconciliation screen links each finding to its buyer). */
export const salePaymentsOfIds = (em: Em, saleIds: readonly number[]) => salesWhereIn(em, 'id', saleIds);
