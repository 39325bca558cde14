import { Hono } from 'hono';
import type { AppEnv, AppModule } from '../http/context.ts';
import { requireSelfOrAdmin } from '../http/guards.ts';
import { konbiniOrdersOf } from '../modules/checkout/index.ts';
import { salesOfUser } from '../modules/sales/index.ts';

/**
 * GET /api/sales/user/{id}: a member's purchase history, composed here from two modules' queries so
 * neither reads the other's tables — the sales (sales module) and the konbini orders that are not
 * sales yet or lapsed unpaid (checkout module), each with its member-facing state.
 */
export const memberHistory = {
  name: 'member-history',
  api: new Hono<AppEnv>().get('/sales/user/:id{[0-9a-fA-F-]+}', requireSelfOrAdmin(), async (c) => {
    const { orm } = c.var.deps;
    const userId = c.req.param('id');
    const [sales, konbiniOrders] = await Promise.all([salesOfUser(orm, userId), konbiniOrdersOf(orm, userId)]);
    return c.json({ sales, konbini_orders: konbiniOrders });
  }),
  entities: [],
} satisfies AppModule;
