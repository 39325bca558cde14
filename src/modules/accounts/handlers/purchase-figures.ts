import { db as kysely } from '../../../db/kysely.ts';
import type { Em } from '../../../db/orm.ts';
import type { EventHandler } from '../../../jobs/context.ts';

interface PurchaseFigures {
  userId: string;
  purchases: number;
  paidTotal: number;
  lastPurchaseAt: string | null;
}

/**
 * SalePaid / SaleRefunded → the buyer's purchase count, total and last purchase on `users`, recomputed
 * from the figures the sales module gives (handed in by workers/handlers.ts: sales already depends on
 * accounts), so running it twice, or out of order, leaves the same row.
 */
export const purchaseFiguresKeeper =
  (figuresOfSale: (em: Em, saleId: number) => Promise<PurchaseFigures | null>): EventHandler<'SalePaid' | 'SaleRefunded'> =>
  async (ctx, event) => {
    const figures = await figuresOfSale(ctx.em, event.payload.saleId);
    if (!figures) return 'skipped';
    await kysely(ctx.em)
      .updateTable('users')
      .set({ purchase_count: figures.purchases, paid_total: figures.paidTotal, last_purchase_at: figures.lastPurchaseAt })
      .where('id', '=', figures.userId)
      .execute();
    return 'done';
  };
