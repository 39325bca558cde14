import { LockMode } from '@mikro-orm/core';
import type { Em } from '../../db/orm.ts';
import type { EventPayload } from '../../events/contracts.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { SaleRefund } from './entities/refund.entity.ts';
import { Sale } from './entities/sale.entity.ts';

class SaleNotYetRecorded extends Error {}

/**
 * PaymentRefunded → what Stripe says is refunded of the charge so far (its running total, so events
 * arriving twice or out of order change nothing more). The new part confirms the refunds asked from
 * the back office, oldest first; what no request explains was refunded in Stripe's dashboard and is
 * recorded as such. Whole: the sale is refunded (kept, left out of exports). SaleRefunded tells the buyer.
 */
export async function markRefunded(em: Em, refund: EventPayload<'PaymentRefunded'>): Promise<'done' | 'skipped'> {
  return transact(em, async (tx) => {
    const sale = await tx.findOne(Sale, { checkoutSessionId: refund.checkoutId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    // The sale is made by the CheckoutPaid job; retry until it has run.
    if (!sale) throw new SaleNotYetRecorded(`no sale yet for checkout ${refund.checkoutId}`);
    const total = Math.min(refund.amountRefunded ?? sale.amount, sale.amount);
    let left = total - sale.refundedAmount;
    if (left <= 0) return 'skipped';
    const at = new Date(refund.refundedAt);
    const pending = await tx.find(SaleRefund, { saleId: sale.id, refundedAt: null }, { orderBy: { id: 'asc' } });
    for (const asked of pending) {
      if (asked.amount > left) break;
      asked.refundedAt = at;
      left -= asked.amount;
    }
    if (left > 0) tx.create(SaleRefund, { saleId: sale.id, amount: left, refundedAt: at, createdAt: at });
    const amount = total - sale.refundedAmount;
    sale.refundedAmount = total;
    if (total >= sale.amount) sale.refundedAt = at;
    recordEvent(tx, 'SaleRefunded', { saleId: sale.id, amount });
    return 'done';
  });
}
