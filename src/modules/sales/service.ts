import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { containsPattern } from '../../db/like.ts';
import type { Em, Orm } from '../../db/orm.ts';
import type { EventPayload } from '../../events/contracts.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { findBuyer } from '../accounts/index.ts';
import { recordAudit } from '../audit/index.ts';
import { findLicenseForSale } from '../licenses/index.ts';
import { type COMPLETE, type PUBLISH, SALE_STATUS_LABEL, Sale } from './entities/sale.entity.ts';

export class SaleNotYetRecorded extends Error {}

/** CheckoutPaid → exactly one sale, with the buyer's details as they are now, and SalePaid. */
export async function recordSale(em: Em, paid: EventPayload<'CheckoutPaid'>): Promise<'done' | 'skipped'> {
  try {
    return await transact(em, async (tx) => {
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
    license_id: sale.licenseId,
    license_name: sale.licenseName,
    amount: sale.amount,
    currency: sale.currency,
    status: sale.status,
    status_label: SALE_STATUS_LABEL[sale.status] ?? '',
    paid_at: sale.paidAt.toISOString(),
    refunded_at: sale.refundedAt ? sale.refundedAt.toISOString() : null,
    receipt_url: sale.receiptUrl,
    user: { first_name: sale.buyerFirstName, last_name: sale.buyerLastName, email: sale.buyerEmail },
    user_id: sale.userId ?? null,
    buyer_affiliation: sale.buyerAffiliation,
    buyer_affiliation_name: sale.buyerAffiliationName,
    buyer_affiliation_other: sale.buyerAffiliationOther,
    licenseId: sale.licenseId,
  };
}

/** A member's purchase history, newest first. */
export async function salesOfUser(orm: Orm, userId: string) {
  const sales = await orm.em.fork().find(Sale, { userId }, { orderBy: { paidAt: 'desc', id: 'desc' } });
  return sales.map(saleDto);
}

export interface SalesFilter {
  licenseId?: number;
  status?: number;
  q?: string;
  paidFrom?: string;
  paidTo?: string;
}

/** The WHERE of the administrators' sales list and of the export, as SQL and parameters. */
export function salesWhere(filter: SalesFilter & { exportable?: boolean }): { sql: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (filter.licenseId) {
    clauses.push('s.license_id = ?');
    params.push(filter.licenseId);
  }
  if (filter.status !== undefined) {
    clauses.push('s.status = ?');
    params.push(filter.status);
  }
  if (filter.exportable) clauses.push('s.status in (0, 1) and s.refunded_at is null');
  if (filter.q) {
    const like = containsPattern(filter.q);
    clauses.push(
      '(s.buyer_last_name ilike ? or s.buyer_first_name ilike ? or s.buyer_email ilike ? or (s.buyer_last_name || s.buyer_first_name) ilike ?)',
    );
    params.push(like, like, like, like);
  }
  // Dates are Japan dates: a whole day from 00:00 JST.
  if (filter.paidFrom) {
    clauses.push("s.paid_at >= (?::date)::timestamp at time zone 'Asia/Tokyo'");
    params.push(filter.paidFrom);
  }
  if (filter.paidTo) {
    clauses.push("s.paid_at < ((?::date + 1)::timestamp at time zone 'Asia/Tokyo')");
    params.push(filter.paidTo);
  }
  return { sql: clauses.length ? `where ${clauses.join(' and ')}` : '', params };
}

/** The administrators' sales list, newest first, with the total. */
export async function listSales(orm: Orm, filter: SalesFilter, page: number, perPage: number) {
  const em = orm.em.fork() as Em;
  const where = salesWhere(filter);
  const [count] = await em.execute<{ n: number }[]>(`select count(*)::int as n from sales s ${where.sql}`, where.params);
  const ids = await em.execute<{ id: number }[]>(
    `select s.id from sales s ${where.sql} order by s.paid_at desc, s.id desc limit ? offset ?`,
    [...where.params, perPage, (page - 1) * perPage],
  );
  const sales = ids.length
    ? await em.find(Sale, { id: { $in: ids.map((r) => r.id) } }, { orderBy: { paidAt: 'desc', id: 'desc' } })
    : [];
  return { sales: sales.map(saleDto), total: count?.n ?? 0, page, per_page: perPage };
}

/**
 * Moves sales of a licence one step forward (0→1 or 1→2), all of them or the chosen ones. Refunded
 * sales stay where they are. Audited, and SaleStatusChanged is recorded.
 */
export async function advanceStatus(
  orm: Orm,
  actor: { id: string; email: string },
  input: { status: typeof PUBLISH | typeof COMPLETE; licenseId: number; saleIds?: number[] },
) {
  const from = input.status - 1;
  return transact(orm.em as Em, async (tx) => {
    const where: Record<string, unknown> = { licenseId: input.licenseId, status: from, refundedAt: null };
    if (input.saleIds) where.id = { $in: input.saleIds };
    const sales = await tx.find(Sale, where, { orderBy: { id: 'asc' } });
    for (const sale of sales) {
      sale.status = input.status;
      sale.updatedAt = new Date();
    }
    if (sales.length) {
      const saleIds = sales.map((s) => s.id);
      recordEvent(tx, 'SaleStatusChanged', { saleIds, from, to: input.status, actorId: actor.id });
      recordAudit(tx, actor, {
        action: 'sale.status',
        targetType: 'license',
        targetId: input.licenseId,
        before: { status: from, sale_ids: saleIds },
        after: { status: input.status, sale_ids: saleIds },
      });
    }
    return sales.map(saleDto);
  });
}

/** The complete page's question: has the webhook made the sale of this checkout yet? */
export async function saleIdForCheckout(em: Em, checkoutId: string): Promise<number | null> {
  const sale = await em.findOne(Sale, { checkoutSessionId: checkoutId }, { fields: ['id'] });
  return sale?.id ?? null;
}

/** UserDeleted → the user's sales keep their buyer snapshot and lose the link to the account. */
export async function forgetUser(em: Em, userId: string): Promise<'done' | 'skipped'> {
  const changed = await em.fork().nativeUpdate(Sale, { userId }, { userId: null, updatedAt: new Date() });
  return changed ? 'done' : 'skipped';
}
