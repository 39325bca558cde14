import { existsSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { AppEnv } from './context.ts';
import { NOT_FOUND_MESSAGE } from './errors.ts';

const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|ico|webmanifest)$/i;
/** Never served, even if a build left one (decision 0031). */
const SOURCE_MAP = /\.map(\.(br|gz))?$/i;

/** A missing `.js` or `.png` is a plain 404, never HTML (decision 0031). */
export function spaRoutes(root: string, config: Record<string, string | undefined>) {
  const app = new Hono<AppEnv>();
  const indexFile = join(root, 'index.html');
  const meta = `<meta name="app-config" content="${escapeAttr(JSON.stringify(config))}">`;
  let index: { html: string; br: Buffer; gzip: Buffer } | undefined;
  const assets = serveStatic({ root, precompressed: true });
  app.use('*', async (c, next) => {
    await next();
    if (COMPRESSIBLE.test(c.req.path) || extname(c.req.path) === '') c.res.headers.set('Vary', 'Accept-Encoding');
    if (c.res.status === 200 && c.res.headers.get('Cache-Control') === null) {
      c.res.headers.set('Cache-Control', c.req.path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    }
  });
  app.get('*', async (c, next) => {
    if (SOURCE_MAP.test(c.req.path)) return c.json({ message: 'お探しのページは見つかりませんでした。' }, 404);
    // `/` and `/index.html` get the page with its config below, never the raw file.
    if (c.req.path.endsWith('/') || c.req.path === '/index.html') return next();
    return assets(c, next);
  });
  app.get('*', async (c) => {
    const path = c.req.path === '/index.html' ? '/' : c.req.path;
    if (extname(path) !== '' || !existsSync(indexFile)) {
      return c.json({ message: NOT_FOUND_MESSAGE }, 404);
    }
    if (!index) {
      const html = readFileSync(indexFile, 'utf8').replace('</head>', `${meta}</head>`);
      index = {
        html,
        br: brotliCompressSync(html, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
        gzip: gzipSync(html, { level: 9 }),
      };
    }
    c.header('Cache-Control', 'no-cache');
    const accepted = acceptedEncodings(c.req.header('Accept-Encoding'));
    const encoding = accepted.has('br') ? 'br' : accepted.has('gzip') ? 'gzip' : undefined;
    if (!encoding) return c.html(index.html);
    c.header('Content-Type', 'text/html; charset=UTF-8');
    c.header('Content-Encoding', encoding);
    return c.body(new Uint8Array(index[encoding]));
  });
  return app;
}

function acceptedEncodings(header: string | undefined): Set<string> {
  const accepted = new Set<string>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (name && !(q && Number(q.slice(2)) === 0)) accepted.add(name);
  }
  return accepted;
}

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
