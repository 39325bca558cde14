import { sql } from 'kysely';
import { japanDayAfter, japanDayStart, db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import { oneOfIds } from './sales-filter.ts';

/** What was refunded of each sale by the end of Japan day `to` (confirmed by Stripe), and the Japan date of the last of it. */
export async function refundsByPeriodEnd(em: Em, saleIds: number[], to: string) {
  const rows = await kysely(em)
    .selectFrom('sale_refunds as r')
    .select((eb) => [
      'r.sale_id',
      eb.fn.sum<string>('r.amount').as('amount'),
      eb
        .fn<string>('to_char', [sql`max(${eb.ref('r.refunded_at')}) at time zone 'Asia/Tokyo'`, sql.lit('YYYY/MM/DD')])
        .as('last'),
    ])
    .where((eb) => oneOfIds(eb.ref('r.sale_id'), saleIds))
    .where('r.refunded_at', '<', japanDayAfter(to))
    .groupBy('r.sale_id')
    .execute();
  return new Map(rows.map((row) => [row.sale_id, { amount: Number(row.amount), last: row.last }]));
}

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
