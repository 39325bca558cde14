import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Em, Orm } from '../../db/orm.ts';
import type { EventPayload } from '../../events/contracts.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { User } from '../accounts/index.ts';
import { License } from '../licenses/index.ts';
import { SALE_STATUS_LABEL, Sale } from './entities/sale.entity.ts';

export class SaleNotYetRecorded extends Error {}

/** CheckoutPaid → exactly one sale, with the buyer's details as they are now, and SalePaid. */
export async function recordSale(em: Em, paid: EventPayload<'CheckoutPaid'>): Promise<'done' | 'skipped'> {
  try {
    return await transact(em, async (tx) => {
      const existing = await tx.findOne(Sale, { checkoutSessionId: paid.checkoutId });
      if (existing) return 'skipped';
      const user = paid.userId ? await tx.findOne(User, { id: paid.userId }) : null;
      const license = await tx.findOneOrFail(License, { id: paid.licenseId });
      const sale = tx.create(Sale, {
        user,
        buyerLastName: user?.lastName ?? '',
        buyerFirstName: user?.firstName ?? '',
        buyerEmail: user?.email ?? '',
        buyerAffiliation: user?.affiliation ?? null,
        buyerAffiliationName: user?.affiliationName ?? '',
        buyerAffiliationOther: user?.affiliationOther ?? null,
        license,
        licenseName: license.name,
        amount: paid.amount,
        currency: paid.currency,
        checkoutSessionId: paid.checkoutId,
        stripeSessionId: paid.stripeSessionId,
        stripePaymentIntentId: paid.paymentIntentId,
        receiptUrl: paid.receiptUrl,
        paidAt: new Date(paid.paidAt),
        refundedAt: null,
        status: 0,
        createdAt: new Date(),
        updatedAt: new Date(),
      });
      await tx.flush();
      recordEvent(tx, 'SalePaid', { saleId: sale.id });
      return 'done';
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) return 'skipped';
    throw error;
  }
}

/** PaymentRefunded → the sale is marked refunded (kept, and left out of exports). */
export async function markRefunded(em: Em, refund: EventPayload<'PaymentRefunded'>): Promise<'done' | 'skipped'> {
  return transact(em, async (tx) => {
    const sale = await tx.findOne(Sale, { checkoutSessionId: refund.checkoutId });
    // The sale is made by the CheckoutPaid job; retry until it has run.
    if (!sale) throw new SaleNotYetRecorded(`no sale yet for checkout ${refund.checkoutId}`);
    if (sale.refundedAt) return 'skipped';
    sale.refundedAt = new Date(refund.refundedAt);
    recordEvent(tx, 'SaleRefunded', { saleId: sale.id });
    return 'done';
  });
}

export function saleDto(sale: Sale) {
  return {
    id: sale.id,
    license_id: (sale.license as unknown as { id: number }).id,
    license_name: sale.licenseName,
    amount: sale.amount,
    currency: sale.currency,
    status: sale.status,
    status_label: SALE_STATUS_LABEL[sale.status] ?? '',
    paid_at: sale.paidAt.toISOString(),
    refunded_at: sale.refundedAt ? sale.refundedAt.toISOString() : null,
    receipt_url: sale.receiptUrl,
    user: { first_name: sale.buyerFirstName, last_name: sale.buyerLastName, email: sale.buyerEmail },
  };
}

/** A member's purchase history, newest first. */
export async function salesOfUser(orm: Orm, userId: string) {
  const sales = await orm.em.fork().find(Sale, { user: userId }, { orderBy: { paidAt: 'desc', id: 'desc' } });
  return sales.map(saleDto);
}
