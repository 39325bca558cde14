const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch);

const shell = (title: string, body: string) => `<!doctype html>
<html lang="ja"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{margin:0;font-family:"Noto Sans JP","IPAGothic",sans-serif;background:#f6f9fc;color:#1a1f36}
main{max-width:480px;margin:40px auto;background:#fff;border-radius:8px;box-shadow:0 2px 12px rgba(0,0,0,.08);padding:32px}
.badge{display:inline-block;background:#ffe8b3;color:#6b4500;font-size:12px;padding:2px 8px;border-radius:4px}
.amount{font-size:32px;font-weight:700;margin:8px 0 24px}
button{display:block;width:100%;padding:12px;margin:12px 0;font:inherit;font-weight:700;border-radius:6px;border:1px solid #635bff;background:#635bff;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#635bff}
button.link{background:none;border:none;color:#4f566b;text-decoration:underline;font-weight:400}
.note{font-size:13px;color:#4f566b}
</style></head><body><main>${body}</main></body></html>`;

/** The emulator's hosted payment page (a stand-in for Stripe Checkout). */
export function checkoutPage(session: {
  id: string;
  amount_total: number;
  currency: string;
  name: string;
  status: string;
}): string {
  const amount = `¥${session.amount_total.toLocaleString('ja-JP')}`;
  if (session.status !== 'open') {
    return shell('お支払い', `<h1>このお支払いページは使えません</h1><p>状態: ${escapeHtml(session.status)}</p>`);
  }
  const action = (what: string) => `/c/pay/${encodeURIComponent(session.id)}/${what}`;
  return shell(
    'お支払い',
    `<p><span class="badge">テスト環境（Stripe エミュレーター）</span></p>
<h1>${escapeHtml(session.name)}</h1>
<p class="amount">${amount}</p>
<form method="post" action="${action('card')}"><button type="submit">カードで支払う</button></form>
<form method="post" action="${action('konbini')}"><button type="submit" class="secondary">コンビニで支払う（後払い）</button></form>
<form method="post" action="${action('cancel')}"><button type="submit" class="link">キャンセルしてショップに戻る</button></form>
<p class="note">実際の請求は発生しません。</p>`,
  );
}
