import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppEnv, AppModule } from '../http/context.ts';
import { permitSelfOr, requireUser, signedInUser } from '../http/guards.ts';
import { operation, pathIds } from '../http/openapi.ts';
import { type MemberOrder, memberOrdersOf } from '../modules/checkout/index.ts';
import { holdingsOf, type MemberSale, memberSalesByCheckout, SaleAnswer, salesOfUser } from '../modules/sales/index.ts';
import { OrderAnswer, orderAnswer } from './member-orders.ts';

const historyDoc = operation('get', {
  summary: '会員の購入履歴（コンビニ決済のお支払い待ちを含む）',
  tags: ['購入'],
  access: 'self-or-admin',
  permission: 'sales:read',
  path: { id: pathIds.uuid },
  answers: {
    200: v.object({
      sales: v.array(
        v.object({
          ...SaleAnswer.entries,
          member_state: v.picklist(['paid', 'in_progress', 'registered', 'partially_refunded', 'refunded']),
          member_state_label: v.string(),
        }),
      ),
      /** Every order (paid, awaiting or lapsed) by order time, newest first. */
      orders: v.array(OrderAnswer),
    }),
  },
});
const holdingsDoc = operation('get', {
  summary: '自分が購入済み・お支払い待ちのライセンス',
  tags: ['購入'],
  access: 'member',
  answers: {
    200: v.object({
      holdings: v.array(
        v.object({
          license_id: v.number(),
          state: v.picklist(['purchased', 'payment_pending']),
          sale_id: v.nullable(v.number()),
          order_number: v.nullable(v.string()),
          purchased_at: v.nullable(v.pipe(v.string(), v.isoTimestamp())),
          /** How a pending order is being paid (konbini or bank_transfer); null once purchased. */
          payment_method: v.nullable(v.picklist(['card', 'konbini', 'bank_transfer'])),
          voucher_url: v.nullable(v.string()),
          expires_at: v.nullable(v.pipe(v.string(), v.isoTimestamp())),
        }),
      ),
    }),
  },
});

/**
 * GET /api/sales/user/{id}: a member's purchase history, composed here from two modules' queries so
 * neither reads the other's tables — the seed's `sales` (sales module) and every order, paid, awaited
 * or lapsed (checkout module, with each order's sale), each with its member-facing state.
 *
 * GET /api/me/holdings: what the signed-in member holds or is paying for, per licence — 購入済み
 * (with the date and order number) or お支払い待ち by konbini (the voucher) or bank transfer. The catalogue is cached
 * and shared by every member (decision 0023), so the pages ask for this small per-member list apart.
 */
export const memberHistory = {
  name: 'member-history',
  api: new Hono<AppEnv>()
    .get('/sales/user/:id{[0-9a-fA-F-]+}', historyDoc, permitSelfOr('sales:read'), async (c) => {
      const { orm } = c.var.deps;
      const userId = c.req.param('id');
      const [sales, orders, byCheckout] = await Promise.all([
        salesOfUser(orm, userId),
        memberOrdersOf(orm, userId),
        memberSalesByCheckout(orm, userId),
      ]);
      // A sale whose checkout is not kept (recorded before checkouts were) is still an order, paid.
      const ordered = new Set(orders.map((order) => order.checkout_id));
      const alone = [...byCheckout].filter(([checkoutId]) => !ordered.has(checkoutId));
      const all = [
        ...orders.map((order) => orderAnswer(order, byCheckout.get(order.checkout_id))),
        ...alone.map(([checkoutId, sale]) => orderAnswer(paidOrderOf(checkoutId, sale), sale)),
      ].sort((a, b) => b.ordered_at.localeCompare(a.ordered_at));
      return c.json({ sales, orders: all });
    })
    .get('/me/holdings', holdingsDoc, requireUser, async (c) => {
      const { orm } = c.var.deps;
      const userId = signedInUser(c).id;
      const [held, orders] = await Promise.all([holdingsOf(orm.em.fork(), userId), memberOrdersOf(orm, userId)]);
      const heldIds = new Set(held.map((h) => h.licenseId));
      const pending = new Map<number, MemberOrder>();
      // Newest first: the order whose voucher or bank account the member should use.
      for (const order of orders) {
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
            payment_method: null,
            voucher_url: null,
            expires_at: null,
          })),
          ...[...pending.values()].map((order) => ({
            license_id: order.license_id,
            state: 'payment_pending' as const,
            sale_id: null,
            order_number: order.order_number,
            purchased_at: null,
            payment_method: order.payment_method,
            voucher_url: order.voucher?.url ?? null,
            expires_at: order.expires_at,
          })),
        ],
      });
    }),
  entities: [],
} satisfies AppModule;

/** The order a sale stands for when its checkout is not kept. */
function paidOrderOf(checkoutId: string, sale: MemberSale): MemberOrder {
  const method = sale.payment_method === 'konbini' || sale.payment_method === 'bank_transfer' ? sale.payment_method : 'card';
  return {
    checkout_id: checkoutId,
    order_number: sale.order_number,
    license_id: sale.license_id,
    license_name: sale.license_name,
    amount: sale.amount,
    currency: sale.currency,
    ordered_at: sale.paid_at,
    payment_method: method,
    payment_method_label: sale.payment_method_label,
    state: 'paid',
    state_label: 'お支払い済み',
    expires_at: null,
    voucher: null,
    bank_transfer: null,
  };
}
