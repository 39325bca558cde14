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
.voucher{width:100%;border-collapse:collapse;margin:16px 0;font-size:14px}
.voucher caption{text-align:left;font-weight:700;margin-bottom:4px}
.voucher th,.voucher td{border-bottom:1px solid #e3e8ee;padding:6px 4px;text-align:left;overflow-wrap:anywhere}
@media (max-width:520px){main{margin:0;border-radius:0;padding:20px}}
</style></head><body><main>${body}</main></body></html>`;

/** The emulator's hosted payment page (a stand-in for Stripe Checkout). */
export function checkoutPage(session: {
  id: string;
  amount_total: number;
  currency: string;
  name: string;
  status: string;
  bankTransfer?: boolean;
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
<form method="post" action="${action('konbini')}"><button type="submit" class="secondary">コンビニ払い</button></form>
${session.bankTransfer ? `<form method="post" action="${action('bank_transfer')}"><button type="submit" class="secondary">銀行振込</button></form>` : ''}
<form method="post" action="${action('cancel')}"><button type="submit" class="link">キャンセルしてショップに戻る</button></form>
<p class="note">実際の請求は発生しません。</p>`,
  );
}

const STORES: [string, string][] = [
  ['familymart', 'ファミリーマート'],
  ['lawson', 'ローソン'],
  ['ministop', 'ミニストップ'],
  ['seicomart', 'セイコーマート'],
];

const jst = new Intl.DateTimeFormat('ja-JP', {
  timeZone: 'Asia/Tokyo',
  year: 'numeric',
  month: 'long',
  day: 'numeric',
  weekday: 'short',
  hour: '2-digit',
  minute: '2-digit',
});

interface VoucherDetails {
  expires_at: number;
  stores: Record<string, { payment_code: string; confirmation_number?: string } | null>;
}

/** The emulator's hosted konbini voucher (a stand-in for Stripe's `hosted_voucher_url` page). */
export function voucherPage(input: { paymentIntent: Record<string, unknown>; name: string }): string {
  const pi = input.paymentIntent;
  const amount = `¥${Number(pi.amount).toLocaleString('ja-JP')}`;
  const head = `<p><span class="badge">テスト環境（Stripe エミュレーター）</span></p><h1>コンビニ払い お支払い番号</h1>
<p>${escapeHtml(input.name)}</p><p class="amount">${amount}</p>`;
  if (pi.status === 'succeeded') return shell('お支払い番号', `${head}<p role="status">お支払いは完了しています。</p>`);
  const details = (pi.next_action as { konbini_display_details?: VoucherDetails } | null)?.konbini_display_details;
  if (pi.status !== 'requires_action' || !details) {
    return shell('お支払い番号', `${head}<p role="status">お支払い期限が過ぎたため、このお支払い番号は使えません。</p>`);
  }
  const rows = STORES.map(([key, label]) => {
    const store = details.stores[key];
    if (!store) return '';
    return `<tr><th scope="row">${label}</th><td>${escapeHtml(store.payment_code)}</td><td>${escapeHtml(store.confirmation_number ?? '—')}</td></tr>`;
  }).join('');
  return shell(
    'お支払い番号',
    `${head}
<p>お支払い期限：<strong>${jst.format(new Date(details.expires_at * 1000))}</strong>（日本時間）</p>
<table class="voucher"><caption>店舗ごとのお支払い番号</caption>
<thead><tr><th scope="col">コンビニ</th><th scope="col">お支払い番号（受付番号）</th><th scope="col">確認番号</th></tr></thead>
<tbody>${rows}</tbody></table>
<ol class="note"><li>店頭の端末またはレジで「各種番号をお持ちの方」を選びます。</li>
<li>お支払い番号と確認番号を入力し、発行された申込券をレジでお渡しください。</li>
<li>期限までに現金でお支払いください。期限を過ぎるとお支払いできません。</li></ol>
<p class="note">実際の請求は発生しません。</p>`,
  );
}

interface BankTransferDetails {
  amount_remaining: number;
  financial_addresses: { zengin?: Record<string, string> }[];
}

/** The emulator's hosted bank transfer instructions (a stand-in for Stripe's `hosted_instructions_url` page). */
export function bankTransferPage(input: { paymentIntent: Record<string, unknown>; name: string }): string {
  const pi = input.paymentIntent;
  const head = `<p><span class="badge">テスト環境（Stripe エミュレーター）</span></p><h1>銀行振込 お振込先</h1>
<p>${escapeHtml(input.name)}</p><p class="amount">¥${Number(pi.amount).toLocaleString('ja-JP')}</p>`;
  if (pi.status === 'succeeded') return shell('お振込先', `${head}<p role="status">お振込みを確認しました。</p>`);
  const details = (pi.next_action as { display_bank_transfer_instructions?: BankTransferDetails } | null)
    ?.display_bank_transfer_instructions;
  const zengin = details?.financial_addresses[0]?.zengin;
  if (pi.status !== 'requires_action' || !zengin) {
    return shell('お振込先', `${head}<p role="status">このお振込先は使えません（お支払いは取り消されました）。</p>`);
  }
  const rows = [
    ['銀行', `${zengin.bank_name}（${zengin.bank_code}）`],
    ['支店', `${zengin.branch_name}（${zengin.branch_code}）`],
    ['口座種別', zengin.account_type === 'futsu' ? '普通' : '当座'],
    ['口座番号', zengin.account_number],
    ['口座名義', zengin.account_holder_name],
    ['お振込金額', `¥${Number(details?.amount_remaining).toLocaleString('ja-JP')}`],
  ]
    .map(([label, value]) => `<tr><th scope="row">${label}</th><td>${escapeHtml(String(value))}</td></tr>`)
    .join('');
  return shell(
    'お振込先',
    `${head}<table class="voucher"><caption>お振込先（お客さま専用の口座）</caption><tbody>${rows}</tbody></table>
<p class="note">金額が不足・超過した場合は Stripe が残高として管理します。実際の請求は発生しません。</p>`,
  );
}
