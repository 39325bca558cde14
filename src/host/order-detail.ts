import { Hono } from 'hono';
import type { AppEnv, AppModule } from '../http/context.ts';
import { requireAdmin } from '../http/guards.ts';
import { NUMERIC_ID } from '../http/path-ids.ts';
import { paymentOfCheckout } from '../modules/checkout/index.ts';
import { saleDetail } from '../modules/sales/index.ts';

/**
 * GET /api/sales/{id} (administrators): the order detail, composed here from two modules so neither
 * reads the other's tables — the sale with its buyer, history, receipts and mails (sales module) and
 * how it was paid (checkout module: card, or konbini with its deadline). Members have no such call:
 * their history and receipts are GET /api/sales/user/{id} and /api/sales/{id}/receipt….
 */
export const orderDetail = {
  name: 'order-detail',
  api: new Hono<AppEnv>().get(`/sales/${NUMERIC_ID}`, requireAdmin, async (c) => {
    const { orm } = c.var.deps;
    const { checkoutId, sale } = await saleDetail(orm, Number(c.req.param('id')));
    const payment = await paymentOfCheckout(orm.em.fork(), checkoutId);
    return c.json({
      sale: {
        ...sale,
        payment_method: payment?.method ?? null,
        payment_method_label: payment?.label ?? '不明',
        konbini_expires_at: payment?.konbini_expires_at ?? null,
        ordered_at: payment?.ordered_at ?? null,
      },
    });
  }),
  entities: [],
} satisfies AppModule;
