import { Hono } from 'hono';
import type { AppEnv } from '../../http/context.ts';
import { requireSelfOrAdmin } from '../../http/guards.ts';
import { salesOfUser } from './service.ts';

export const salesRoutes = new Hono<AppEnv>().get('/sales/user/:id', requireSelfOrAdmin(), async (c) =>
  c.json({ sales: await salesOfUser(c.var.deps.orm, c.req.param('id')) }),
);
