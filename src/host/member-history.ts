import { Hono } from 'hono';
import type { AppEnv, AppModule } from '../http/context.ts';
import { requireSelfOrAdmin, requireUser, signedInUser } from '../http/guards.ts';
import { konbiniOrdersOf } from '../modules/checkout/index.ts';
import { holdingsOf, salesOfUser } from '../modules/sales/index.ts';

/**
 * GET /api/sales/user/{id}: a member's purchase history, composed here from two modules' queries so
 * neither reads the other's tables — the sales (sales module) and the konbini orders that are not
 * sales yet or lapsed unpaid (checkout module), each with its member-facing state.
 *
 * GET /api/me/holdings: what the signed-in member holds or is paying for, per licence — 購入済み
 * (with the date and order number) or コンビニ支払い待ち (with the voucher). The catalogue is cached
 * and shared by every member (decision 0023), so the pages ask for this small per-member list apart.
 */
export const memberHistory = {
  name: 'member-history',
  api: new Hono<AppEnv>()
    .get('/sales/user/:id{[0-9a-fA-F-]+}', requireSelfOrAdmin(), async (c) => {
      const { orm } = c.var.deps;
      const userId = c.req.param('id');
      const [sales, konbiniOrders] = await Promise.all([salesOfUser(orm, userId), konbiniOrdersOf(orm, userId)]);
      return c.json({ sales, konbini_orders: konbiniOrders });
    })
    .get('/me/holdings', requireUser, async (c) => {
      const { orm } = c.var.deps;
      const userId = signedInUser(c).id;
      const [held, konbiniOrders] = await Promise.all([holdingsOf(orm.em.fork(), userId), konbiniOrdersOf(orm, userId)]);
      const heldIds = new Set(held.map((h) => h.licenseId));
      const pending = new Map<number, (typeof konbiniOrders)[number]>();
      // Newest first: the order whose voucher the member should use.
      for (const order of konbiniOrders) {
        if (order.state === 'awaiting_payment' && !heldIds.has(order.license_id) && !pending.has(order.license_id)) {
          pending.set(order.license_id, order);
        }
      }
      return c.json({
        holdings: [
          ...held.map((h) => ({
            license_id: h.licenseId,
            state: 'purchased' as const,
            sale_id: h.saleId,
            order_number: h.orderNumber,
            purchased_at: h.paidAt.toISOString(),
            voucher_url: null,
            expires_at: null,
          })),
          ...[...pending.values()].map((order) => ({
            license_id: order.license_id,
            state: 'payment_pending' as const,
            sale_id: null,
            order_number: null,
            purchased_at: null,
            voucher_url: order.voucher?.url ?? null,
            expires_at: order.expires_at,
          })),
        ],
      });
    }),
  entities: [],
} satisfies AppModule;
