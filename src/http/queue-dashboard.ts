import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type Context, Hono } from 'hono';
import type { Queues } from '../events/queues.ts';
import { site } from '../site-settings.ts';
import type { AppEnv } from './context.ts';
import { AppError } from './errors.ts';
import { checkNetwork, currentUser, may } from './guards.ts';
import { QUEUE_DASHBOARD_SCRIPT, QUEUE_DASHBOARD_STYLE } from './queue-dashboard-ui.ts';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';
const QUEUE_DASHBOARD_TITLE = 'ジョブキュー';
const OWN_SCRIPT = '/shop/dashboard.js';
const OWN_STYLE = '/shop/dashboard.css';
const LOCALE_FILE = '/static/locales/ja-JP/messages.json';
export interface QueueDashboardOptions {
  appOrigin: string;
  /** A member's browser gets the SPA, whose /admin guard shows its own 403 page. */
  spa?: Hono<AppEnv>;
}

/** Read-only (docs/decisions/0017-queue-dashboard-read-only.md); its API calls cannot echo our CSRF header, so this guard accepts unsafe requests only from this origin. */
export function queueDashboard(queues: Queues, { appOrigin, spa }: QueueDashboardOptions) {
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    const user = await currentUser(c);
    if (!user || !may(user, 'operations:read')) {
      if (!isPageRequest(c)) throw new AppError(user ? 'forbidden' : 'unauthorized');
      // Not `?next=` back here: the SPA has no route for this server page.
      if (!user) return c.redirect('/login');
      return refusedPage(c, spa);
    }
    try {
      await checkNetwork(c, user);
    } catch (error) {
      if (isPageRequest(c)) return c.redirect('/admin/network-refused');
      throw error;
    }
    if (!['GET', 'HEAD'].includes(c.req.method)) {
      const fetchSite = c.req.header('sec-fetch-site');
      const origin = c.req.header('origin');
      if (fetchSite !== 'same-origin' && origin !== appOrigin) throw new AppError('csrf');
    }
    await next();
    if (c.res.headers.get('content-type')?.startsWith('text/html')) {
      const headers = new Headers(c.res.headers);
      headers.delete('content-length');
      c.res = new Response(localPage(await c.res.text()), { status: c.res.status, headers });
    }
  });
  app.get(OWN_SCRIPT, (c) => c.body(QUEUE_DASHBOARD_SCRIPT, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.get(OWN_STYLE, (c) => c.body(QUEUE_DASHBOARD_STYLE, 200, { 'content-type': 'text/css; charset=utf-8' }));
  app.get(LOCALE_FILE, (c) => c.json(japaneseMessages()));
  // bull-board (its UI, API and their libraries) is loaded on the first administrator's request.
  let board: Promise<Hono> | undefined;
  app.all('*', async (c) => {
    board ??= import('./queue-board.ts').then(({ createQueueBoard }) =>
      new Hono().route(QUEUE_DASHBOARD_PATH, createQueueBoard(queues, QUEUE_DASHBOARD_PATH, QUEUE_DASHBOARD_TITLE)),
    );
    return (await board).fetch(c.req.raw, c.env);
  });
  return app;
}

function isPageRequest(c: Context<AppEnv>): boolean {
  return (
    ['GET', 'HEAD'].includes(c.req.method) &&
    !c.req.path.startsWith(`${QUEUE_DASHBOARD_PATH}/api/`) &&
    (c.req.header('accept') ?? '').includes('text/html')
  );
}

async function refusedPage(c: Context<AppEnv>, spa: Hono<AppEnv> | undefined): Promise<Response> {
  if (spa) {
    const shell = await spa.request(c.req.path, { headers: { 'accept-encoding': c.req.header('accept-encoding') ?? '' } });
    if (shell.ok) return new Response(shell.body, { status: 403, headers: shell.headers });
  }
  return c.html(FORBIDDEN_PAGE, 403);
}

const FORBIDDEN_PAGE = `<!doctype html>
<html lang="ja"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>アクセスできません｜${site.shopName}</title></head>
<body><main><h1>アクセスできません</h1><p role="alert">このページを表示する権限がありません。</p>
<p><a href="/">トップへ戻る</a></p></main></body></html>`;

/** Japanese, and nothing from another origin: its template links Google Fonts, which our CSP blocks. */
function localPage(html: string): string {
  return html
    .replace(/<html\b([^>]*?)\blang="[^"]*"/, '<html$1lang="ja"')
    .replace(/<title>[^<]*<\/title>/, `<title>${QUEUE_DASHBOARD_TITLE}｜${site.shopName}</title>`)
    .replace(/[ \t]*<link\b[^>]*\bhref="(?:https?:)?\/\/[^"]*"[^>]*>\s*/gi, '')
    .replace(/<script\b[^>]*\bsrc="(?:https?:)?\/\/[^"]*"[^>]*>\s*<\/script>\s*/gi, '')
    .replace(/>\s*Loading\s*</, '>読み込み中…<')
    .replace(
      '</head>',
      `<link href="${QUEUE_DASHBOARD_PATH}${OWN_STYLE}" rel="stylesheet">` +
        `<script defer src="${QUEUE_DASHBOARD_PATH}${OWN_SCRIPT}"></script></head>`,
    );
}

/** A delayed job is 「予約」 (waiting for its time), not 「遅延」 (late), and no raw English status. */
let messages: unknown;
function japaneseMessages(): unknown {
  if (messages) return messages;
  const ui = dirname(createRequire(import.meta.url).resolve('@bull-board/ui/package.json'));
  const raw = readFileSync(join(ui, 'dist', 'static', 'locales', 'ja-JP', 'messages.json'), 'utf8');
  messages = rewordMessages(JSON.parse(raw));
  return messages;
}

const REWORDINGS: [RegExp, string][] = [
  [/このキューに\{\{status\}\}ジョブはありません。/g, 'このキューに、この状態のジョブはありません。'],
  [/\{\{status\}\}ジョブ/g, 'この状態のジョブ'],
  [/\{\{count\}\} ジョブ/g, '{{count}}件'],
  [/遅延時間/g, '実行までの時間'],
  [/遅延/g, '予約'],
];

export function rewordMessages(value: unknown): unknown {
  if (typeof value === 'string') return REWORDINGS.reduce((text, [from, to]) => text.replace(from, to), value);
  if (Array.isArray(value)) return value.map(rewordMessages);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, rewordMessages(v)]));
  }
  return value;
}
