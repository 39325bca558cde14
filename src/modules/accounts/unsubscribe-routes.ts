import { Hono } from 'hono';
import type { Em } from '../../db/orm.ts';
import type { AppEnv } from '../../http/context.ts';
import { site } from '../../site-settings.ts';
import { unsubscribe, unsubscribeTarget } from './consent.ts';

/** The one path exempt from CSRF for a POST: mail providers post it with no cookie (RFC 8058). */
export const UNSUBSCRIBE_PATH = /^\/unsubscribe\/[A-Za-z0-9_-]{43}$/;

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch);

/** A page of its own, drawn by the server: it works without JavaScript and outside a session. */
function page(title: string, body: string): string {
  return `<!doctype html><html lang="ja"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}｜${escapeHtml(site.shopName)}</title>
<style>body{font-family:sans-serif;line-height:1.7;color:#222;margin:0;background:#f5f7fa}main{max-width:36rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:8px}
button{font-size:1rem;padding:.6rem 1.4rem;background:#0b5394;color:#fff;border:0;border-radius:4px;cursor:pointer}button:focus-visible,a:focus-visible{outline:3px solid #f5a623;outline-offset:2px}
a{color:#0b5394}footer{max-width:36rem;margin:0 auto 2rem;padding:0 1.5rem;font-size:.85rem;color:#444}</style></head>
<body><main><h1>${escapeHtml(title)}</h1>${body}</main>
<footer><p>${escapeHtml(site.companyName)}<br>${escapeHtml(site.address)}<br>${escapeHtml(site.contact)}</p></footer></body></html>`;
}

const INVALID = page(
  'リンクが無効です',
  '<p>このメール配信停止のリンクは無効です。お手数ですが、メールに記載のリンクをそのまま開いてください。</p><p><a href="/">トップページへ</a></p>',
);

const DONE = page(
  'メール配信を停止しました',
  `<p>${escapeHtml(site.shopName)}からのお知らせメールの配信を停止しました。</p>
<p>ご購入・領収書・セキュリティに関するメールなど、お手続きに必要なメールは引き続きお送りします。</p>
<p>配信を再開するには、ログインして<a href="/login">会員情報の変更</a>から「メールでのご案内」を受け取るにしてください。</p>`,
);

/** GET shows the button; POST (the button, or a mail provider's one-click) turns announcements off. */
export const unsubscribeRoutes = new Hono<AppEnv>()
  .get('/unsubscribe/:token', async (c) => {
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    const target = await unsubscribeTarget(c.var.deps.orm.em.fork() as Em, c.req.param('token'));
    if (!target) return c.html(INVALID, 404);
    if (!target.distribution) return c.html(DONE);
    return c.html(
      page(
        'メール配信の停止',
        `<p>${escapeHtml(site.shopName)}からの新しいトレーニングやライセンスのご案内メールの配信を停止します。よろしければ下のボタンを押してください。</p>
<form method="post"><button type="submit">配信を停止する</button></form>
<p>ご購入・領収書・セキュリティに関するメールは、配信停止後もお送りします。</p>`,
      ),
    );
  })
  .post('/unsubscribe/:token', async (c) => {
    c.header('Cache-Control', 'no-store');
    const result = await unsubscribe(c.var.deps.orm, c.req.param('token'));
    if (result === 'unknown') return c.html(INVALID, 404);
    c.var.log.info('announcements unsubscribed', { result });
    return c.html(DONE);
  });
