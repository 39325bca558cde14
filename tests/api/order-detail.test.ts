import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { buyThroughStripe, type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';
import { eventually } from '../support/wait.ts';

let smtp: TestSmtp;
let shop: ShopWithStripe;
let licenseId: number;
let admin: TestClient;
let seq = 0;
const ADMIN_EMAIL = 'order-admin@example.jp';

beforeAll(async () => {
  smtp = await startSmtp();
  shop = await startShopWithStripe({ smtpUrl: smtp.url });
  const license = await createLicense(
    shop.runtime.deps.orm,
    shop.runtime.deps.files,
    { id: 'test', email: 'test' },
    { name: 'ICLS 受講ライセンス', description: '', price: 3000 },
    [],
  );
  licenseId = license.id;
  await createOrPromoteAdmin(shop.runtime.deps.orm, { email: ADMIN_EMAIL, password: 'admin-pass-123' });
  admin = new TestClient(shop.app, '10.44.9.9');
  expect((await admin.login(ADMIN_EMAIL, 'admin-pass-123')).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await shop?.stop();
  await smtp?.close();
});

async function member() {
  const { id, email, password } = await aMember(shop.runtime.deps.orm, {
    lastName: '注文',
    firstName: `太郎${++seq}`,
    affiliation: 4,
    affiliationName: '〇〇市消防局',
  });
  const client = new TestClient(shop.app, `10.44.0.${seq}`);
  expect((await client.login(email, password)).status).toBe(200);
  return { client, id, email };
}
type Member = Awaited<ReturnType<typeof member>>;

async function checkout(buyer: Member) {
  const res = await buyer.client.post('/api/licenses/stripe', { licenseId, distribution: true });
  expect(res.status, await res.clone().text()).toBe(200);
  return new URL((await res.json()).url).pathname.split('/').pop() as string;
}

const buy = (buyer: Member, method: 'card' | 'konbini' = 'card') => buyThroughStripe(shop, buyer.client, licenseId, method);

const detail = async (saleId: number) => {
  const res = await admin.get(`/api/sales/${saleId}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()).sale;
};

describe('GET /api/sales/{id}', () => {
  it('shows an order whole: number, licence, amount with tax, payment, Stripe ids, buyer now and then, history, receipts, mails', async () => {
    const buyer = await member();
    const { saleId, sessionId, paymentIntent } = await buy(buyer);
    await smtp.waitFor((m) => smtp.to(buyer.email)(m) && (m.subject ?? '').includes('ご購入ありがとうございます'));
    // The member issues a receipt; an administrator moves the sale and sends it back with a reason.
    expect((await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, { addressee: 'organisation' })).status).toBe(200);
    expect((await buyer.client.get(`/api/sales/${saleId}/receipt`)).status).toBe(200);
    expect((await admin.post('/api/sales/update', { status: 1, licenseId, saleIds: [saleId] })).status).toBe(200);
    expect((await admin.post('/api/sales/revert', { saleIds: [saleId], reason: '所属の確認待ち' })).status).toBe(200);
    // The member renames themselves after the purchase.
    await shop.runtime.deps.orm.em
      .fork()
      .execute('update users set last_name = ?, first_name = ? where id = ?', ['改名', '次郎', buyer.id]);

    const sale = await detail(saleId);
    expect(sale).toMatchObject({
      id: saleId,
      license_id: licenseId,
      license_name: 'ICLS 受講ライセンス',
      amount: 3000,
      // The receipts' tax: floor(3000 × 10 / 110).
      tax: 272,
      status: 0,
      status_label: '出力待ち',
      refunded_at: null,
      payment_method: 'card',
      payment_method_label: 'クレジットカード',
      konbini_expires_at: null,
      stripe_session_id: sessionId,
      stripe_payment_intent_id: paymentIntent,
      user_id: buyer.id,
      exported: true,
      refund: { state: 'none', state_label: '', requested_at: null, requested_by: null, reason: null, refunded_at: null },
      buyer_at_purchase: {
        last_name: '注文',
        first_name: `太郎${seq}`,
        email: buyer.email,
        affiliation: 4,
        affiliation_label: '消防・救急',
        affiliation_name: '〇〇市消防局',
      },
      buyer_now: { id: buyer.id, last_name: '改名', first_name: '次郎', email: buyer.email, affiliation_label: '消防・救急' },
      receipt: { issue_count: 1, addressee: '〇〇市消防局 御中' },
    });
    expect(sale.order_number).toMatch(/^LS-\d{4}-[0-9A-HJKMNP-TV-Z]{6}$/);
    expect(new Date(sale.paid_at).getTime()).toBeLessThanOrEqual(Date.now());
    expect(sale.receipt.first_issued_at).toBeTruthy();
    expect(sale.receipt.last_issued_at).toBeTruthy();
    expect(sale.ordered_at).toBeTruthy();
    // History: paid, the move with who did it, the 差し戻し with why, and the receipt issue.
    expect(sale.history[0]).toMatchObject({ kind: 'paid', to_status: 0 });
    const moves = sale.history.filter((h: { kind: string }) => h.kind === 'move');
    expect(moves).toEqual([
      expect.objectContaining({
        from_status: 0,
        to_status: 1,
        actor_email: ADMIN_EMAIL,
        label: '発行状態の更新：出力待ち → 処理中',
      }),
      expect.objectContaining({
        from_status: 1,
        to_status: 0,
        actor_email: ADMIN_EMAIL,
        reason: '所属の確認待ち',
        label: '発行状態の差し戻し：処理中 → 出力待ち',
      }),
    ]);
    expect(sale.history).toContainEqual(
      expect.objectContaining({ kind: 'audit', label: '領収書の発行', actor_email: buyer.email }),
    );
    // Mails about this sale: the purchase mail, found by what it is about.
    expect(sale.mails).toContainEqual(
      expect.objectContaining({ kind: 'receipt', kind_label: 'ご購入のお礼（領収）', recipient: buyer.email, status: 'sent' }),
    );
    expect(sale.mails.every((m: { recipient: string }) => m.recipient === buyer.email)).toBe(true);

    // Administrators only; a missing sale is a Japanese 404.
    expect((await buyer.client.get(`/api/sales/${saleId}`)).status).toBe(403);
    const missing = await admin.get('/api/sales/999999999');
    expect(missing.status).toBe(404);
    expect((await missing.json()).message).toBe('この注文（売上）は見つかりませんでした。');
    // The inbox row of its session names the sale, for the link to this page.
    const inbox = await (await admin.get(`/api/payments/events?session=${sessionId}`)).json();
    expect(inbox.events.length).toBeGreaterThan(0);
    expect(inbox.events.every((e: { sale_id: number | null }) => e.sale_id === saleId)).toBe(true);
  });

  it('names a konbini payment with its deadline, and the voucher mail sent for its checkout', async () => {
    const buyer = await member();
    const { saleId } = await buy(buyer, 'konbini');
    await eventually(
      async () => (await detail(saleId)).mails.some((m: { kind: string }) => m.kind === 'receipt'),
      15_000,
      'the purchase mail',
    );
    const sale = await detail(saleId);
    expect(sale).toMatchObject({ payment_method: 'konbini', payment_method_label: 'コンビニ払い', exported: false });
    expect(sale.konbini_expires_at).toBeTruthy();
    expect(sale.mails.map((m: { kind: string }) => m.kind)).toEqual(expect.arrayContaining(['konbini-voucher', 'receipt']));
  });
});

describe('POST /api/sales/{id}/refund', () => {
  it('asks the Stripe emulator for a full refund of the right PaymentIntent; 返金手続き中 until the webhook marks it refunded', async () => {
    const buyer = await member();
    const { saleId, paymentIntent } = await buy(buyer);
    const other = await member();
    const { paymentIntent: otherIntent } = await buy(other);

    // The reason is required; members may not refund; the CSRF token is checked.
    const noReason = await admin.post(`/api/sales/${saleId}/refund`, { reason: '  ' });
    expect(noReason.status).toBe(422);
    expect((await noReason.json()).errors.reason).toEqual(['返金の理由を入力してください。']);
    const long = await admin.post(`/api/sales/${saleId}/refund`, { reason: 'あ'.repeat(201) });
    expect((await long.json()).errors.reason).toEqual(['返金の理由は200文字以内で入力してください。']);
    expect((await buyer.client.post(`/api/sales/${saleId}/refund`, { reason: '自分で' })).status).toBe(403);
    expect((await admin.request('POST', `/api/sales/${saleId}/refund`, { json: { reason: 'x' }, csrf: false })).status).toBe(419);
    expect(shop.emulator.refunds.size).toBe(0);

    shop.emulator.hold();
    const res = await admin.post(`/api/sales/${saleId}/refund`, { reason: '二重購入のため' });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = await res.json();
    expect(body.refund).toMatchObject({
      state: 'requested',
      state_label: '返金手続き中',
      requested_by: ADMIN_EMAIL,
      reason: '二重購入のため',
    });
    expect(body.message).toContain('返金手続き中');

    // The emulator saw one full refund of this sale's PaymentIntent, not the other's.
    const refunds = [...shop.emulator.refunds.values()];
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ payment_intent: paymentIntent, amount: 3000, status: 'succeeded' });
    expect((refunds[0] as { metadata: Record<string, string> }).metadata.sale_id).toBe(String(saleId));
    expect(refunds.some((r) => r.payment_intent === otherIntent)).toBe(false);

    // Until charge.refunded arrives, the order and the list say 返金手続き中.
    const pending = await detail(saleId);
    expect(pending.refund).toMatchObject({ state: 'requested', state_label: '返金手続き中', refunded_at: null });
    expect(pending.refunded_at).toBeNull();
    const listed = await (await admin.get(`/api/sales?q=${pending.order_number}`)).json();
    expect(listed.sales[0]).toMatchObject({ id: saleId, refunded_at: null });
    expect(listed.sales[0].refund_requested_at).toBeTruthy();
    // Asked again (a double click): the same refund, nothing twice.
    expect((await admin.post(`/api/sales/${saleId}/refund`, { reason: '二重購入のため' })).status).toBe(200);
    expect(shop.emulator.refunds.size).toBe(1);
    const held = shop.emulator.held();
    expect(held.map((e) => e.type)).toEqual(['charge.refunded']);
    await shop.emulator.release();

    const refunded = await eventually(
      async () => {
        const sale = await detail(saleId);
        return sale.refund.state === 'refunded' ? sale : null;
      },
      15_000,
      'the refund webhook',
    );
    expect(refunded.refund).toMatchObject({ state_label: '返金済み', reason: '二重購入のため' });
    expect(refunded.refunded_at).toBeTruthy();
    // In that order, though Stripe's time of the refund (to the second) may fall before the request's.
    const kinds = refunded.history.map((h: { kind: string }) => h.kind);
    expect(kinds.indexOf('refund_requested')).toBeGreaterThan(0);
    expect(kinds.indexOf('refunded')).toBe(kinds.indexOf('refund_requested') + 1);
    expect(refunded.history).toContainEqual(
      expect.objectContaining({ kind: 'refund_requested', actor_email: ADMIN_EMAIL, reason: '二重購入のため' }),
    );

    // Audited with the reason.
    const audit = await (await admin.get(`/api/audit-logs?action=sale.refund&target_type=sale&target_id=${saleId}`)).json();
    expect(audit.audit_logs).toHaveLength(1);
    expect(audit.audit_logs[0]).toMatchObject({ actor_email: ADMIN_EMAIL, action_label: '返金の依頼（Stripe へ）' });
    expect(JSON.stringify(audit.audit_logs[0].changes)).toContain('二重購入のため');

    // The member is told: 返金のお知らせ with the order number, the amount and when (Japan time).
    const mail = await smtp.waitFor((m) => smtp.to(buyer.email)(m) && (m.subject ?? '').includes('返金のお知らせ'));
    expect(mail.text).toContain(`ご注文番号：${refunded.order_number}`);
    expect(mail.text).toContain('返金額：¥3,000（税込）');
    expect(mail.text).toContain('（日本時間）');
    expect(mail.text).toContain('数日');
    await eventually(
      async () => (await detail(saleId)).mails.some((m: { kind: string }) => m.kind === 'refund-notice'),
      15_000,
      'the notice in the order’s mails',
    );

    // Refunded: 409.
    const again = await admin.post(`/api/sales/${saleId}/refund`, { reason: 'もう一度' });
    expect(again.status).toBe(409);
    expect((await again.json()).message).toBe('この売上は返金済みです。');
    expect(shop.emulator.refunds.size).toBe(1);
  });

  it('an exported sale needs the confirmation that the training system will be told (422 without it)', async () => {
    const buyer = await member();
    const { saleId, paymentIntent } = await buy(buyer);
    expect((await admin.post('/api/sales/update', { status: 1, licenseId, saleIds: [saleId] })).status).toBe(200);
    expect((await detail(saleId)).exported).toBe(true);

    const refused = await admin.post(`/api/sales/${saleId}/refund`, { reason: '受講取りやめ' });
    expect(refused.status).toBe(422);
    const body = await refused.json();
    expect(body.errors.confirm_exported[0]).toContain('研修管理システム');
    expect(body.message).toContain('研修管理システム');
    expect([...shop.emulator.refunds.values()].some((r) => r.payment_intent === paymentIntent)).toBe(false);
    expect((await detail(saleId)).refund.state).toBe('none');

    const confirmed = await admin.post(`/api/sales/${saleId}/refund`, { reason: '受講取りやめ', confirm_exported: true });
    expect(confirmed.status, await confirmed.clone().text()).toBe(200);
    expect([...shop.emulator.refunds.values()].some((r) => r.payment_intent === paymentIntent)).toBe(true);
    await eventually(async () => (await detail(saleId)).refund.state === 'refunded', 15_000, 'the refund');
  });

  it('Stripe refusing the refund answers 409 in Japanese and withdraws the request (audited)', async () => {
    const buyer = await member();
    const { saleId } = await buy(buyer);
    // A payment Stripe no longer knows (e.g. made in another Stripe account).
    await shop.runtime.deps.orm.em
      .fork()
      .execute('update sales set stripe_payment_intent_id = ? where id = ?', ['pi_test_unknown_to_stripe', saleId]);
    const res = await admin.post(`/api/sales/${saleId}/refund`, { reason: 'テスト' });
    expect(res.status).toBe(409);
    const body = await res.json();
    expect(body.code).toBe('stripe_refused');
    expect(body.message).toMatch(/^Stripe が返金を受け付けませんでした。/);
    expect((await detail(saleId)).refund).toMatchObject({ state: 'none', requested_at: null });
    const audit = await (await admin.get(`/api/audit-logs?action=sale.refund.failed&target_id=${saleId}`)).json();
    expect(audit.audit_logs).toHaveLength(1);
  });

  it('a missing sale is 404 and an unknown Stripe outage is 503 with a Japanese message', async () => {
    expect((await admin.post('/api/sales/999999999/refund', { reason: 'x' })).status).toBe(404);
    const buyer = await member();
    const { saleId } = await buy(buyer);
    const stripe = shop.runtime.deps.stripe;
    const create = stripe.refunds.create;
    stripe.refunds.create = (() =>
      Promise.reject(new Stripe.errors.StripeConnectionError({ message: 'connect ECONNREFUSED' }))) as typeof create;
    try {
      const res = await admin.post(`/api/sales/${saleId}/refund`, { reason: '障害テスト' });
      expect(res.status).toBe(503);
      expect((await res.json()).message).toBe('決済サービスに接続できませんでした。時間をおいて再度お試しください。');
    } finally {
      stripe.refunds.create = create;
    }
    expect((await detail(saleId)).refund.state).toBe('none');
  });
});

describe('numeric path ids', () => {
  it('are canonical decimals: 01, +1, 1.0, spaces, signs and numbers past int4 are 404 and act on nothing', async () => {
    const buyer = await member();
    const { saleId } = await buy(buyer);
    const forms = [`0${saleId}`, `00${saleId}`, `+${saleId}`, `-${saleId}`, `${saleId}.0`, `${saleId}e0`, `%20${saleId}`];
    for (const id of [...forms, `${saleId}%20`, `%30${saleId}`, '0', '2147483648', '99999999999999999999', '1'.repeat(400)]) {
      expect((await admin.post(`/api/sales/${id}/refund`, { reason: '不正なID' })).status, id).toBe(404);
      expect((await admin.get(`/api/sales/${id}`)).status, id).toBe(404);
      expect((await buyer.client.get(`/api/sales/${id}/receipt-addressee`)).status, id).toBe(404);
      expect((await buyer.client.put(`/api/sales/${id}/receipt-addressee`, { addressee: 'name' })).status, id).toBe(404);
      expect((await buyer.client.get(`/api/sales/${id}/receipt`)).status, id).toBe(404);
    }
    for (const id of [`0${licenseId}`, `+${licenseId}`, `${licenseId}.0`, '2147483648', '99999999999999999999']) {
      expect((await admin.get(`/api/licenses/${id}`)).status, id).toBe(404);
    }
    const padded = await admin.get(`/api/licenses/0${licenseId}`);
    expect((await padded.json()).message).toBe('エラー: ライセンスが見つかりませんでした。');
    expect((await detail(saleId)).refund.state).toBe('none');
    expect((await admin.get(`/api/sales/${saleId}`)).status).toBe(200);
  });
});

describe('GET /api/payments/pending-konbini', () => {
  it('lists konbini payments awaited (amount, deadline, member, licence) and those that lapsed, paged', async () => {
    const buyer = await member();
    const sessionId = await checkout(buyer);
    shop.emulator.pay(sessionId, 'konbini');
    const waiting = await eventually(
      async () => {
        const page = await (await admin.get('/api/payments/pending-konbini?per_page=100')).json();
        return page.konbini_payments.find((p: { user_id: string }) => p.user_id === buyer.id);
      },
      15_000,
      'the awaited payment',
    );
    expect(waiting).toMatchObject({
      state: 'awaiting',
      state_label: 'お支払い待ち',
      amount: 3000,
      license_id: licenseId,
      license_name: 'ICLS 受講ライセンス',
      user: { last_name: '注文', first_name: `太郎${seq}`, email: buyer.email },
      lapsed_at: null,
    });
    expect(new Date(waiting.expires_at).getTime()).toBeGreaterThan(Date.now());
    const page = await (await admin.get('/api/payments/pending-konbini?per_page=1')).json();
    expect(page).toMatchObject({ state: 'awaiting', page: 1, per_page: 1 });
    expect(page.konbini_payments).toHaveLength(1);
    expect(page.totals.awaiting).toBeGreaterThanOrEqual(1);

    shop.emulator.lapseKonbini(sessionId);
    const lapsed = await eventually(
      async () => {
        const list = await (await admin.get('/api/payments/pending-konbini?state=lapsed&per_page=100')).json();
        return list.konbini_payments.find((p: { checkout_id: string }) => p.checkout_id === waiting.checkout_id);
      },
      15_000,
      'the lapsed payment',
    );
    expect(lapsed).toMatchObject({ state: 'lapsed', state_label: '期限切れ', user: { email: buyer.email } });
    expect(lapsed.lapsed_at).toBeTruthy();
    const awaiting = await (await admin.get('/api/payments/pending-konbini?per_page=100')).json();
    expect(awaiting.konbini_payments.some((p: { checkout_id: string }) => p.checkout_id === waiting.checkout_id)).toBe(false);

    expect((await buyer.client.get('/api/payments/pending-konbini')).status).toBe(403);
    const bad = await admin.get('/api/payments/pending-konbini?state=paid');
    expect(bad.status).toBe(422);
    expect((await bad.json()).errors.state[0]).toContain('お支払い待ち');
  });
});
