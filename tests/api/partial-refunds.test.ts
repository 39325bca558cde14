import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { buyThroughStripe, chargeRefundedHandled, type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';
import { eventually } from '../support/wait.ts';

let smtp: TestSmtp;
let shop: ShopWithStripe;
let licenseId: number;
let admin: TestClient;
let seq = 0;
const ADMIN_EMAIL = 'refund-admin@example.jp';

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
  admin = new TestClient(shop.app, '10.45.9.9');
  expect((await admin.login(ADMIN_EMAIL, 'admin-pass-123')).status).toBe(200);
}, 60_000);
// A test stopped midway must not leave Stripe failing for the next.
afterEach(() => shop?.emulator.fail('refunds', null));
afterAll(async () => {
  await shop?.stop();
  await smtp?.close();
});

async function member() {
  const { id, email, password } = await aMember(shop.runtime.deps.orm, {
    lastName: '返金',
    firstName: `太郎${++seq}`,
    affiliation: 4,
    affiliationName: '〇〇市消防局',
  });
  const client = new TestClient(shop.app, `10.44.0.${seq}`);
  expect((await client.login(email, password)).status).toBe(200);
  return { client, id, email };
}
type Member = Awaited<ReturnType<typeof member>>;

const buy = (buyer: Member) => buyThroughStripe(shop, buyer.client, licenseId);

const detail = async (saleId: number) => {
  const res = await admin.get(`/api/sales/${saleId}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()).sale;
};

const query = <T>(text: string, params: unknown[]) => shop.runtime.deps.orm.em.fork().execute<T[]>(text, params);

const refundsOf = (paymentIntent: string) =>
  [...shop.emulator.refunds.values()].filter((r) => r.payment_intent === paymentIntent).map((r) => r.amount);

describe('partial refunds: POST /api/sales/{id}/refund { amount }', () => {
  it('refunds in parts through the Stripe emulator, 一部返金 until the rest, then 返金済み; never above what remains', async () => {
    const buyer = await member();
    const { saleId, paymentIntent } = await buy(buyer);

    // 1,000 yen first: the emulator is asked for exactly that; Stripe's webhook confirms it.
    const first = await admin.post(`/api/sales/${saleId}/refund`, { amount: 1000, reason: '一部キャンセル' });
    expect(first.status, await first.clone().text()).toBe(200);
    expect((await first.json()).refund).toMatchObject({ pending_amount: 1000, remaining_amount: 2000 });
    expect(refundsOf(paymentIntent)).toEqual([1000]);
    // The same request again (a double click) refunds nothing more.
    expect((await admin.post(`/api/sales/${saleId}/refund`, { amount: 1000, reason: '一部キャンセル' })).status).toBe(200);
    expect(refundsOf(paymentIntent)).toEqual([1000]);
    const partial = await eventually(
      async () => {
        const sale = await detail(saleId);
        return sale.refund.state === 'partially_refunded' ? sale : null;
      },
      15_000,
      'the first refund confirmed',
    );
    expect(partial.refund).toMatchObject({ state_label: '一部返金', refunded_amount: 1000, remaining_amount: 2000 });
    expect(partial.refunded_amount).toBe(1000);
    expect(partial.refunded_at).toBeNull();
    const mail = await smtp.waitFor((m) => smtp.to(buyer.email)(m) && (m.subject ?? '').includes('返金のお知らせ'));
    expect(mail.text).toContain('返金額：¥1,000（税込）');
    expect(mail.text).toContain('一部');

    // More than remains: 422 in Japanese, nothing asked of Stripe.
    const tooMuch = await admin.post(`/api/sales/${saleId}/refund`, { amount: 2001, reason: '多すぎる' });
    expect(tooMuch.status).toBe(422);
    expect((await tooMuch.json()).errors.amount).toEqual(['返金額は、まだ返金していない¥2,000以内で入力してください。']);
    for (const amount of [0, -5, 1.5, '100']) {
      const bad = await admin.post(`/api/sales/${saleId}/refund`, { amount, reason: '不正' });
      expect(bad.status, String(amount)).toBe(422);
      expect((await bad.json()).errors.amount[0]).toContain('返金額');
    }
    expect(refundsOf(paymentIntent)).toEqual([1000]);

    // A second part, then the rest without an amount.
    expect((await admin.post(`/api/sales/${saleId}/refund`, { amount: 500, reason: '追加の返金' })).status).toBe(200);
    await eventually(async () => (await detail(saleId)).refund.refunded_amount === 1500, 15_000, 'the second refund');
    const rest = await admin.post(`/api/sales/${saleId}/refund`, { reason: '残りを返金' });
    expect(rest.status, await rest.clone().text()).toBe(200);
    expect(refundsOf(paymentIntent)).toEqual([1000, 500, 1500]);
    const refunded = await eventually(
      async () => {
        const sale = await detail(saleId);
        return sale.refund.state === 'refunded' ? sale : null;
      },
      15_000,
      'the whole refund',
    );
    expect(refunded.refund).toMatchObject({ refunded_amount: 3000, remaining_amount: 0, state_label: '返金済み' });
    expect(refunded.refund.refunds.map((r: { amount: number; reason: string }) => [r.amount, r.reason])).toEqual([
      [1000, '一部キャンセル'],
      [500, '追加の返金'],
      [1500, '残りを返金'],
    ]);
    expect(refunded.history.filter((h: { kind: string }) => h.kind === 'refunded')).toHaveLength(3);
    const again = await admin.post(`/api/sales/${saleId}/refund`, { amount: 1, reason: 'もう一度' });
    expect(again.status).toBe(409);

    // The member's history and the summary show the refunded amounts; audited with each amount.
    const history = await (await buyer.client.get(`/api/sales/user/${buyer.id}`)).json();
    expect(history.sales[0]).toMatchObject({ id: saleId, refunded_amount: 3000, member_state: 'refunded' });
    const today = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Tokyo' }).format(new Date());
    const summary = (await (await admin.get(`/api/sales/summary?from=${today}&to=${today}`)).json()).summary;
    expect(summary.refunded_amount).toBeGreaterThanOrEqual(3000);
    const audit = await (await admin.get(`/api/audit-logs?action=sale.refund&target_type=sale&target_id=${saleId}`)).json();
    expect(audit.audit_logs).toHaveLength(3);
  });

  it('the first refund Stripe refuses (409) or fails (503) is withdrawn; asked again it refunds once, told once', async () => {
    const buyer = await member();
    const { saleId, paymentIntent } = await buy(buyer);
    const failedAudits = async () =>
      (await (await admin.get(`/api/audit-logs?action=sale.refund.failed&target_id=${saleId}`)).json()).audit_logs.length;

    shop.emulator.fail('refunds', {
      status: 400,
      type: 'invalid_request_error',
      code: 'charge_disputed',
      message: 'Charge ch_test has been charged back; cannot issue a refund.',
    });
    const refused = await admin.post(`/api/sales/${saleId}/refund`, { reason: '受講取りやめ' });
    expect(refused.status).toBe(409);
    expect((await refused.json()).code).toBe('stripe_refused');
    expect((await detail(saleId)).refund).toMatchObject({ state: 'none', requested_at: null, refunds: [] });
    expect(await failedAudits()).toBe(1);

    shop.emulator.fail('refunds', { status: 500, type: 'api_error', message: 'An unknown error occurred.' });
    const unavailable = await admin.post(`/api/sales/${saleId}/refund`, { reason: '受講取りやめ' });
    expect(unavailable.status).toBe(503);
    expect((await unavailable.json()).message).toBe('決済サービスに接続できませんでした。時間をおいて再度お試しください。');
    expect((await detail(saleId)).refund).toMatchObject({ state: 'none', requested_at: null, refunds: [] });
    expect(await failedAudits()).toBe(2);
    expect(refundsOf(paymentIntent)).toEqual([]);

    // Stripe keeps each withdrawn key's error for 24 h (the emulator too): the next request has its own key.
    shop.emulator.fail('refunds', null);
    const done = await admin.post(`/api/sales/${saleId}/refund`, { reason: '受講取りやめ' });
    expect(done.status, await done.clone().text()).toBe(200);
    expect(refundsOf(paymentIntent)).toEqual([3000]);
    await eventually(async () => (await detail(saleId)).refund.state === 'refunded', 15_000, 'the refund confirmed');
    await chargeRefundedHandled(shop, paymentIntent);
    const mail = await smtp.waitFor((m) => smtp.to(buyer.email)(m) && (m.subject ?? '').includes('返金のお知らせ'));
    expect(mail.text).toContain('返金額：¥3,000（税込）');
    const [deliveries] = await query<{ n: number }>(
      "select count(*)::int as n from mail_deliveries where recipient = ? and template = 'refund-notice'",
      [buyer.email],
    );
    expect(deliveries?.n).toBe(1);
    expect(smtp.messages.filter((m) => smtp.to(buyer.email)(m) && (m.subject ?? '').includes('返金のお知らせ'))).toHaveLength(1);
    expect((await detail(saleId)).refund.refunds).toHaveLength(1);
  });

  it('a member mid-refund sees 一部返金 in their history', async () => {
    const buyer = await member();
    const { saleId } = await buy(buyer);
    expect((await admin.post(`/api/sales/${saleId}/refund`, { amount: 300, reason: '値引き' })).status).toBe(200);
    const sale = await eventually(
      async () => {
        const list = await (await buyer.client.get(`/api/sales/user/${buyer.id}`)).json();
        return list.sales[0]?.refunded_amount === 300 ? list.sales[0] : null;
      },
      15_000,
      'the partial refund in the history',
    );
    expect(sale).toMatchObject({ member_state: 'partially_refunded', member_state_label: '一部返金', refunded_at: null });
  });
});
