import { japanDayAfter, japanDayStart, db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';

/** The refunds Stripe confirmed in a period, grouped by licence and refunded amount (tax once per amount). */
export function refundsInPeriod(em: Em, from: string, to: string) {
  return kysely(em)
    .selectFrom('sale_refunds as r')
    .innerJoin('sales as s', 's.id', 'r.sale_id')
    .select((eb) => [
      's.license_id',
      'r.amount',
      eb.cast<number>(eb.fn.countAll(), 'integer').as('n'),
      eb.fn.max('s.license_name').as('name'),
    ])
    .where('r.refunded_at', '>=', japanDayStart(from))
    .where('r.refunded_at', '<', japanDayAfter(to))
    .groupBy(['s.license_id', 'r.amount'])
    .execute();
}
