import { existsSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { AppEnv } from './context.ts';

/**
 * The built SPA: files from `root`, hashed assets cached for a year, and `index.html` for deep links
 * (paths without a file extension). A missing `.js` or `.png` is a plain 404, never HTML.
 */
export function spaRoutes(root: string, config: Record<string, string | undefined>) {
  const app = new Hono<AppEnv>();
  const indexFile = join(root, 'index.html');
  const meta = `<meta name="app-config" content="${escapeAttr(JSON.stringify(config))}">`;
  let indexHtml: string | undefined;
  const assets = serveStatic({ root });
  app.use('*', async (c, next) => {
    await next();
    if (c.res.status === 200 && c.res.headers.get('Cache-Control') === null) {
      c.res.headers.set('Cache-Control', c.req.path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    }
  });
  app.get('*', assets, async (c) => {
    if (extname(c.req.path) !== '' || !existsSync(indexFile)) {
      return c.json({ message: 'お探しのページは見つかりませんでした。' }, 404);
    }
    indexHtml ??= readFileSync(indexFile, 'utf8').replace('</head>', `${meta}</head>`);
    c.header('Cache-Control', 'no-cache');
    return c.html(indexHtml);
  });
  return app;
}

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
