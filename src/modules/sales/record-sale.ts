import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { countAll, db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import type { EventPayload } from '../../events/contracts.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { findBuyer } from '../accounts/index.ts';
import { findLicenseForSale } from '../licenses/index.ts';
import { PAYMENT_METHOD_LABEL, SALE_STATUS_LABEL, Sale, SaleStatus } from './entities/sale.entity.ts';
import { newOrderNumber } from './order-number.ts';
import { parseOrderNumber } from './sales-filter.ts';

/** A new order number drawn this many times at most (a clash is one in a billion a month). */
const ORDER_NUMBER_ATTEMPTS = 5;

const isOrderNumberClash = (error: unknown) =>
  error instanceof UniqueConstraintViolationException && error.message.includes('sales_order_number_unique');

/**
 * CheckoutPaid → exactly one sale, with the buyer's details as they are now, its order number, and
 * SalePaid. The order number is drawn again when it clashes with another sale's.
 */
export async function recordSale(em: Em, paid: EventPayload<'CheckoutPaid'>): Promise<'done' | 'skipped'> {
  for (let attempt = 1; ; attempt++) {
    try {
      // The checkout's number; a clash (a number drawn before checkouts had numbers) draws a new one.
      return await recordSaleOnce(em, paid, attempt === 1 ? (paid.orderNumber ?? null) : null);
    } catch (error) {
      if (isOrderNumberClash(error) && attempt < ORDER_NUMBER_ATTEMPTS) continue;
      if (error instanceof UniqueConstraintViolationException && !isOrderNumberClash(error)) return 'skipped';
      throw error;
    }
  }
}

function recordSaleOnce(em: Em, paid: EventPayload<'CheckoutPaid'>, orderNumber: string | null): Promise<'done' | 'skipped'> {
  return transact(em, async (tx) => {
    const existing = await tx.findOne(Sale, { checkoutSessionId: paid.checkoutId });
    if (existing) return 'skipped';
    const user = paid.userId ? await findBuyer(tx, paid.userId) : null;
    const license = await findLicenseForSale(tx, paid.licenseId);
    if (!license) throw new Error(`licence ${paid.licenseId} of checkout ${paid.checkoutId} not found`);
    const sale = tx.create(Sale, {
      userId: user?.id ?? null,
      buyerLastName: user?.lastName ?? '',
      buyerFirstName: user?.firstName ?? '',
      buyerEmail: user?.email ?? '',
      buyerAffiliation: user?.affiliation ?? null,
      buyerAffiliationName: user?.affiliationName ?? '',
      buyerAffiliationOther: user?.affiliationOther ?? null,
      licenseId: license.id,
      licenseName: license.name,
      amount: paid.amount,
      currency: paid.currency,
      checkoutSessionId: paid.checkoutId,
      stripeSessionId: paid.stripeSessionId,
      stripePaymentIntentId: paid.paymentIntentId,
      receiptUrl: paid.receiptUrl,
      paidAt: new Date(paid.paidAt),
      orderedAt: paid.orderedAt ? new Date(paid.orderedAt) : null,
      paymentMethod: paid.paymentMethod ?? 'card',
      orderNumber: orderNumber ?? newOrderNumber(new Date(paid.paidAt)),
      refundedAt: null,
      status: SaleStatus.AwaitingExport,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    await tx.flush();
    recordEvent(tx, 'SalePaid', { saleId: sale.id });
    return 'done';
  });
}

/** What the API shows of a sale: an entity, or a row read with SALE_VIEW_COLUMNS (timestamps as text). */
export type SaleView = Pick<
  Sale,
  | 'id'
  | 'orderNumber'
  | 'licenseId'
  | 'licenseName'
  | 'amount'
  | 'currency'
  | 'receiptUrl'
  | 'buyerFirstName'
  | 'buyerLastName'
  | 'buyerEmail'
  | 'userId'
  | 'buyerAffiliation'
  | 'buyerAffiliationName'
  | 'buyerAffiliationOther'
> & {
  status: number;
  paidAt: Date | string;
  refundedAt?: Date | string | null;
  refundRequestedAt?: Date | string | null;
  refundedAmount?: number;
  paymentMethod?: string;
  buyerGone?: string | null;
};
export function saleDto(sale: SaleView) {
  return {
    id: sale.id,
    order_number: sale.orderNumber ?? null,
    license_id: sale.licenseId,
    license_name: sale.licenseName,
    amount: sale.amount,
    currency: sale.currency,
    status: sale.status,
    status_label: SALE_STATUS_LABEL[sale.status as SaleStatus] ?? '',
    paid_at: new Date(sale.paidAt).toISOString(),
    refunded_at: sale.refundedAt ? new Date(sale.refundedAt).toISOString() : null,
    // What Stripe has confirmed refunded so far (a partial refund leaves refunded_at null).
    refunded_amount: sale.refundedAmount ?? 0,
    payment_method: sale.paymentMethod ?? 'card',
    payment_method_label: PAYMENT_METHOD_LABEL[sale.paymentMethod ?? 'card'] ?? '',
    // A refund asked of Stripe from the back office, not yet confirmed (返金手続き中).
    refund_requested_at: sale.refundRequestedAt && !sale.refundedAt ? new Date(sale.refundRequestedAt).toISOString() : null,
    receipt_url: sale.receiptUrl,
    user: { first_name: sale.buyerFirstName, last_name: sale.buyerLastName, email: sale.buyerEmail },
    user_id: sale.userId ?? null,
    buyer_affiliation: sale.buyerAffiliation,
    buyer_affiliation_name: sale.buyerAffiliationName,
    buyer_affiliation_other: sale.buyerAffiliationOther,
    // Why the buyer's account is gone: `withdrew` (退会), `deleted` (by an administrator), or null.
    buyer_gone: sale.buyerGone ?? null,
    licenseId: sale.licenseId,
  };
}
/** The sale of a checkout, once the webhook made it: its id and order number (the thanks page). */
export async function saleOfCheckout(em: Em, checkoutId: string): Promise<{ id: number; orderNumber: string | null } | null> {
  const sale = await em.findOne(Sale, { checkoutSessionId: checkoutId }, { fields: ['id', 'orderNumber'] });
  return sale ? { id: sale.id, orderNumber: sale.orderNumber ?? null } : null;
}

/** A licence a member holds: their latest paid, not refunded sale of it. */
export interface Holding {
  saleId: number;
  licenseId: number;
  orderNumber: string | null;
  paidAt: Date;
}

/**
 * The licences `userId` holds (paid, not refunded), one entry per licence with its latest sale;
 * only `licenseId` when given (POST /api/licenses/stripe's 409).
 */
export async function holdingsOf(em: Em, userId: string, licenseId?: number): Promise<Holding[]> {
  const rows = await kysely(em)
    .selectFrom('sales')
    .distinctOn('license_id')
    .select(['id', 'license_id', 'order_number', 'paid_at'])
    .where('user_id', '=', userId)
    .where('refunded_at', 'is', null)
    .$if(licenseId !== undefined, (q) => q.where('license_id', '=', licenseId as number))
    .orderBy('license_id')
    .orderBy('paid_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((row) => ({
    saleId: row.id,
    licenseId: row.license_id,
    orderNumber: row.order_number,
    paidAt: new Date(row.paid_at),
  }));
}

/** The sale with this order number (typed any way parseOrderNumber reads), for the payments inbox. */
export async function saleOfOrderNumber(em: Em, text: string): Promise<{ id: number; stripeSessionId: string } | null> {
  const orderNumber = parseOrderNumber(text);
  if (!orderNumber) return null;
  const row = await kysely(em)
    .selectFrom('sales')
    .select(['id', 'stripe_session_id'])
    .where('order_number', '=', orderNumber)
    .executeTakeFirst();
  return row ? { id: row.id, stripeSessionId: row.stripe_session_id } : null;
}

/**
 * UserDeleted → the user's sales keep their buyer snapshot and lose the link to the account, noting
 * whether the member left (退会) or an administrator deleted the account (unknown for older events).
 */
export async function forgetUser(em: Em, userId: string, by?: 'member' | 'admin'): Promise<'done' | 'skipped'> {
  const buyerGone = by === 'member' ? 'withdrew' : by === 'admin' ? 'deleted' : null;
  const changed = await em.fork().nativeUpdate(Sale, { userId }, { userId: null, buyerGone, updatedAt: new Date() });
  const quoted = await kysely(em)
    .updateTable('quotations')
    .set({ user_id: null })
    .where('user_id', '=', userId)
    .executeTakeFirst();
  const invoiced = await kysely(em)
    .updateTable('invoices')
    .set({ user_id: null })
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return changed || quoted.numUpdatedRows > 0n || invoiced.numUpdatedRows > 0n ? 'done' : 'skipped';
}

/** Standing sales (a refund frees its seat), and which of `checkoutIds` are already sales. */
export async function seatsSold(
  em: Em,
  licenseIds: number[],
  checkoutIds: string[] = [],
): Promise<{ sold: Map<number, number>; recorded: Set<string> }> {
  if (!licenseIds.length) return { sold: new Map(), recorded: new Set() };
  // One after another: `em` may be the caller's transaction, a single connection.
  const db = kysely(em);
  const counts = await db
    .selectFrom('sales')
    .select((eb) => ['license_id', countAll(eb).as('n')])
    .where('license_id', 'in', licenseIds)
    .where('refunded_at', 'is', null)
    .groupBy('license_id')
    .execute();
  const recorded = checkoutIds.length
    ? await db.selectFrom('sales').select('checkout_session_id').where('checkout_session_id', 'in', checkoutIds).execute()
    : [];
  return {
    sold: new Map(counts.map((row) => [row.license_id, Number(row.n)])),
    recorded: new Set(recorded.map((row) => String(row.checkout_session_id))),
  };
}
