import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';
import { eventually } from '../support/wait.ts';

// Issue 34 item 2: every checkout has its order number from the moment it is created; the sale made
// from it keeps that number; pending pages and mails carry it (docs/decisions/0046).

const ORDER_NUMBER = /^LS-\d{4}-[0-9A-HJKMNP-TV-Z]{6}$/;
let shop: ShopWithStripe;
let smtp: TestSmtp;
let licenseId: number;
let seq = 0;

beforeAll(async () => {
  smtp = await startSmtp();
  shop = await startShopWithStripe({ smtpUrl: smtp.url });
  licenseId = (
    await createLicense(
      shop.runtime.deps.orm,
      shop.runtime.deps.files,
      { id: 'test', email: 'test' },
      { name: '救急隊員 指導者ライセンス', description: '', price: 11000 },
      [],
    )
  ).id;
}, 60_000);
afterAll(async () => {
  await shop?.stop();
  await smtp?.close();
});

async function member() {
  const email = `ordering${++seq}-${Date.now()}@example.jp`;
  const user = await aMember(shop.runtime.deps.orm, {
    email,
    password: 'buyer-pass-123',
    lastName: '受注',
    firstName: `一郎${seq}`,
    emailVerified: true,
    affiliation: 1,
    affiliationName: '〇〇消防本部',
  });
  const client = new TestClient(shop.app, `10.61.0.${seq}`);
  expect((await client.login(email, 'buyer-pass-123')).status).toBe(200);
  return { client, id: user.id, email };
}
type Member = Awaited<ReturnType<typeof member>>;

async function start(buyer: Member) {
  const res = await buyer.client.post('/api/licenses/stripe', { licenseId, distribution: true });
  expect(res.status, await res.clone().text()).toBe(200);
  return new URL((await res.json()).url).pathname.split('/').pop() as string;
}
interface Status {
  state: string;
  sale_id: number | null;
  order_number: string | null;
}
const statusOf = async (buyer: Member, sessionId: string) =>
  (await (await buyer.client.get(`/api/checkout/sessions/${sessionId}`)).json()) as Status;

describe('order numbers from the moment of ordering', () => {
  it('a card checkout has its number before payment, sent to Stripe, and the sale keeps it', async () => {
    const buyer = await member();
    const sessionId = await start(buyer);
    const before = await statusOf(buyer, sessionId);
    expect(before.state).toBe('open');
    expect(before.order_number).toMatch(ORDER_NUMBER);
    expect(shop.emulator.sessions.get(sessionId)?.metadata).toMatchObject({ orderNumber: before.order_number });
    shop.emulator.pay(sessionId, 'card');
    const paid = await eventually(
      async () => {
        const s = await statusOf(buyer, sessionId);
        return s.sale_id ? s : null;
      },
      15_000,
      'the sale',
    );
    expect(paid.order_number).toBe(before.order_number);
    const history = await (await buyer.client.get(`/api/sales/user/${buyer.id}`)).json();
    expect(history.sales[0].order_number).toBe(before.order_number);
    const mail = await smtp.waitFor((m) => smtp.to(buyer.email)(m) && m.subject?.includes('ご購入ありがとうございます') === true);
    expect(mail.text).toContain(`ご注文番号：${before.order_number}`);
    expect(mail.text).toContain(`/users/${buyer.id}/orders/${before.order_number}`);
  });

  it('a konbini order carries its number on the thanks page, the history, the voucher and lapse mails; lapsed it says so', async () => {
    const buyer = await member();
    const sessionId = await start(buyer);
    const { order_number: number } = await statusOf(buyer, sessionId);
    shop.emulator.pay(sessionId, 'konbini');
    const pending = await eventually(
      async () => {
        const s = await statusOf(buyer, sessionId);
        return s.state === 'awaiting_payment' ? s : null;
      },
      15_000,
      'awaiting payment',
    );
    expect(pending.order_number).toBe(number);
    const voucherMail = await smtp.waitFor(
      (m) => smtp.to(buyer.email)(m) && m.subject?.includes('お支払い番号のご案内') === true,
    );
    expect(voucherMail.text).toContain(`ご注文番号：${number}`);
    expect(voucherMail.text).toContain(`/users/${buyer.id}/orders/${number}`);
    const history = await (await buyer.client.get(`/api/sales/user/${buyer.id}`)).json();
    expect(history.orders[0]).toMatchObject({ order_number: number, payment_method: 'konbini', state_label: 'お支払い待ち' });

    shop.emulator.lapseKonbini(sessionId);
    const lapsedMail = await smtp.waitFor((m) => smtp.to(buyer.email)(m) && m.subject?.includes('支払期限切れ') === true);
    expect(lapsedMail.text).toContain(`ご注文番号：${number}`);
    const lapsed = await eventually(
      async () => {
        const h = await (await buyer.client.get(`/api/sales/user/${buyer.id}`)).json();
        return h.orders[0]?.state === 'expired' ? h : null;
      },
      15_000,
      'the lapse',
    );
    expect(lapsed.orders[0]).toMatchObject({ order_number: number, state_label: '期限切れ（お支払いはありません）' });
  });

  it('a paid konbini order becomes a sale under the same number', async () => {
    const buyer = await member();
    const sessionId = await start(buyer);
    const { order_number: number } = await statusOf(buyer, sessionId);
    shop.emulator.pay(sessionId, 'konbini');
    await eventually(async () => (await statusOf(buyer, sessionId)).state === 'awaiting_payment', 15_000, 'pending');
    shop.emulator.settleKonbini(sessionId, true);
    const paid = await eventually(
      async () => {
        const s = await statusOf(buyer, sessionId);
        return s.sale_id ? s : null;
      },
      15_000,
      'the sale',
    );
    expect(paid.order_number).toBe(number);
  });
});
