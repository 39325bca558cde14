import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { HonoAdapter } from '@bull-board/hono';
import { serveStatic } from '@hono/node-server/serve-static';
import { type Context, Hono } from 'hono';
import { jobLabel, queueLabel } from '../events/labels.ts';
import type { Queues } from '../events/queues.ts';
import { site } from '../site-settings.ts';
import type { AppEnv } from './context.ts';
import { AppError } from './errors.ts';
import { currentUser, isAdmin } from './guards.ts';
import { QUEUE_DASHBOARD_SCRIPT, QUEUE_DASHBOARD_STYLE } from './queue-dashboard-ui.ts';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';
const QUEUE_DASHBOARD_TITLE = 'ジョブキュー';
const OWN_SCRIPT = '/shop/dashboard.js';
const OWN_STYLE = '/shop/dashboard.css';
const LOCALE_FILE = '/static/locales/ja-JP/messages.json';
const BACK_TO_ADMIN = { text: '管理メニューへ戻る', url: '/admin' } as const;
const TO_OPERATIONS = { text: '運用状況（滞りの件数）', url: '/admin/operations' } as const;

/** At least 4.5:1 (WCAG AA) on its cards, sidebar and tabs, in both themes. */
const READABLE_THEME = {
  light: {
    'muted-foreground': '#4f5a64',
    destructive: '#b3261e',
    'sidebar-state-selected-foreground': '#0a5a51',
    'status-failed': '#c62828',
    'status-completed': '#15803d',
    'status-waiting': '#b45309',
    'status-waiting-children': '#c2410c',
    'status-prioritized': '#a21caf',
  },
  dark: {
    'muted-foreground': '#a9b3c0',
    destructive: '#f2857e',
    'status-failed': '#f08080',
    'status-completed': '#5fc482',
    'status-prioritized': '#d68ee0',
    'status-active': '#7ea5e6',
    'status-delayed': '#a890e6',
  },
};

export interface QueueDashboardOptions {
  appOrigin: string;
  /** A member's browser gets the SPA, whose /admin guard shows its own 403 page. */
  spa?: Hono<AppEnv>;
}

/** Read-only (docs/decisions/0017-queue-dashboard-read-only.md); its API calls cannot echo our CSRF header, so this guard accepts unsafe requests only from this origin. */
export function queueDashboard(queues: Queues, { appOrigin, spa }: QueueDashboardOptions) {
  const adapter = new HonoAdapter(serveStatic);
  adapter.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    queues: Object.values(queues).map((queue) => {
      const adapter = new BullMQAdapter(queue, { readOnlyMode: true, displayName: queueLabel(queue.name) });
      // A job's name is the event it carries: shown in the administrator's words (events/labels.ts).
      adapter.setFormatter('name', (job: { name?: string }) => jobLabel(job.name ?? ''));
      return adapter;
    }),
    serverAdapter: adapter,
    options: {
      uiConfig: {
        boardTitle: QUEUE_DASHBOARD_TITLE,
        locale: { lng: 'ja-JP' },
        miscLinks: [BACK_TO_ADMIN, TO_OPERATIONS],
        hideDocsLink: true,
        theme: READABLE_THEME,
      },
    },
  });
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    const user = await currentUser(c);
    if (!user || !isAdmin(user)) {
      if (!isPageRequest(c)) throw new AppError(user ? 'forbidden' : 'unauthorized');
      // Not `?next=` back here: the SPA has no route for this server page.
      if (!user) return c.redirect('/login');
      return refusedPage(c, spa);
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
  app.route('/', adapter.registerPlugin() as unknown as Hono<AppEnv>);
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
