import { db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';

/** Stripe events in the payments inbox not yet turned into sales: waiting, and failed (see /admin/payments). */
export async function paymentsInboxFigures(em: Em): Promise<{ unprocessed: number; failed: number }> {
  const row = await kysely(em)
    .selectFrom('stripe_events')
    .select((eb) => [
      eb.cast<number>(eb.fn.countAll().filterWhere('failed_at', 'is', null), 'integer').as('unprocessed'),
      eb.cast<number>(eb.fn.countAll().filterWhere('failed_at', 'is not', null), 'integer').as('failed'),
    ])
    .where('processed_at', 'is', null)
    .executeTakeFirst();
  return { unprocessed: row?.unprocessed ?? 0, failed: row?.failed ?? 0 };
}

/**
 * Reconciliation's differences no one marked 確認済み, on runs the admin menu lists (NEEDS_ATTENTION in
 * reconciliation-runs.ts); a payment several runs found again counts once: it is one refund to make.
 */
export async function flaggedPaymentFigures(em: Em): Promise<{ open: number }> {
  const row = await kysely(em)
    .selectFrom('payment_findings as f')
    .innerJoin('reconciliation_runs as r', 'r.id', 'f.run_id')
    .select((eb) =>
      eb
        .cast<number>(eb.fn.count(eb.fn.coalesce('f.stripe_session_id', eb.cast<string>('f.id', 'text'))).distinct(), 'integer')
        .as('open'),
    )
    .where('f.acknowledged_at', 'is', null)
    .where('r.acknowledged_at', 'is', null)
    .where('r.notified', 'is not', null)
    .executeTakeFirst();
  return { open: row?.open ?? 0 };
}
