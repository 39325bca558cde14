import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppEnv, AppModule } from '../http/context.ts';
import { permit } from '../http/guards.ts';
import { operation, pathIds, timestamp } from '../http/openapi.ts';
import { NUMERIC_ID } from '../http/path-ids.ts';
import { paymentOfCheckout } from '../modules/checkout/index.ts';
import { SaleDetailAnswer, saleDetail } from '../modules/sales/index.ts';

const detailDoc = operation('get', {
  summary: '注文の詳細（購入者、履歴、領収書、メール、支払い方法）',
  tags: ['売上'],
  access: 'admin',
  permission: 'sales:read',
  path: { id: pathIds.number },
  answers: {
    200: v.object({
      sale: v.object({
        ...SaleDetailAnswer.entries,
        payment_method: v.nullable(v.picklist(['card', 'konbini', 'bank_transfer'])),
        payment_method_label: v.string(),
        konbini_expires_at: v.nullable(timestamp()),
        ordered_at: v.nullable(timestamp()),
      }),
    }),
  },
});

/**
 * GET /api/sales/{id} (administrators): the order detail, composed here from two modules so neither
 * reads the other's tables — the sale with its buyer, history, receipts and mails (sales module) and
 * how it was paid (checkout module: card, or konbini with its deadline). Members have no such call:
 * their history and receipts are GET /api/sales/user/{id} and /api/sales/{id}/receipt….
 */
export const orderDetail = {
  name: 'order-detail',
  api: new Hono<AppEnv>().get(`/sales/${NUMERIC_ID}`, detailDoc, permit('sales:read'), async (c) => {
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
