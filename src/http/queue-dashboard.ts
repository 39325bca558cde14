import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { Queues } from '../events/queues.ts';
import type { AppEnv } from './context.ts';
import { AppError } from './errors.ts';
import { currentUser, isAdmin } from './guards.ts';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * The operators' queue dashboard (bull-board, in Japanese) for administrators only. Its own API calls
 * cannot echo our CSRF header, so app.ts exempts them and this guard accepts unsafe requests only
 * from this origin (Sec-Fetch-Site / Origin), on top of the SameSite=Lax session cookie.
 */
export function queueDashboard(queues: Queues, appOrigin: string) {
  const adapter = new HonoAdapter(serveStatic);
  adapter.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    queues: Object.values(queues).map((queue) => new BullMQAdapter(queue)),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: 'ジョブキュー', locale: { lng: 'ja-JP' }, hideDocsLink: true } },
  });
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    const user = await currentUser(c);
    const wantsHtml = (c.req.header('accept') ?? '').includes('text/html');
    if (!user) {
      if (wantsHtml) return c.redirect('/login');
      throw new AppError('unauthorized');
    }
    if (!isAdmin(user)) throw new AppError('forbidden');
    if (!['GET', 'HEAD'].includes(c.req.method)) {
      const site = c.req.header('sec-fetch-site');
      const origin = c.req.header('origin');
      if (site !== 'same-origin' && origin !== appOrigin) throw new AppError('csrf');
    }
    return next();
  });
  app.route('/', adapter.registerPlugin() as unknown as Hono<AppEnv>);
  return app;
}
