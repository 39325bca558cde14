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
