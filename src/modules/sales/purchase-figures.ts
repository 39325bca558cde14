import { countAll, db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';

/** The buyer of `saleId` and their purchases now: paid sales not refunded (for the member list's read model). */
export async function purchaseFiguresOfSale(em: Em, saleId: number) {
  const db = kysely(em);
  const sale = await db.selectFrom('sales').select('user_id').where('id', '=', saleId).executeTakeFirst();
  if (!sale?.user_id) return null;
  const row = await db
    .selectFrom('sales as s')
    .select((eb) => [
      countAll(eb).as('purchases'),
      eb.fn.sum<string | null>('s.amount').as('total'),
      eb.fn.max('s.paid_at').as('last'),
    ])
    .where('s.user_id', '=', sale.user_id)
    .where('s.refunded_at', 'is', null)
    .executeTakeFirstOrThrow();
  return { userId: sale.user_id, purchases: row.purchases, paidTotal: Number(row.total ?? 0), lastPurchaseAt: row.last };
}
