import { Hono } from 'hono';
import type { AppEnv } from '../../http/context.ts';
import { requireAdmin, signedInUser } from '../../http/guards.ts';
import { NUMERIC_ID } from '../../http/path-ids.ts';
import { jsonInput } from '../../http/validate.ts';
import { RefundInput, requestRefund } from './refund.ts';

/** POST /api/sales/{id}/refund (administrators): a full refund asked of Stripe. GET /api/sales/{id} is the host's. */
export const refundRoutes = new Hono<AppEnv>().post(`/sales/${NUMERIC_ID}/refund`, requireAdmin, async (c) => {
  const input = await jsonInput(c, RefundInput);
  const user = signedInUser(c);
  const { orm, payments } = c.var.deps;
  return c.json(
    await requestRefund({ orm, payments, log: c.var.log }, { id: user.id, email: user.email }, Number(c.req.param('id')), input),
  );
});
