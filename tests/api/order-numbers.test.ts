import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { buyThroughStripe, type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';
import { eventually } from '../support/wait.ts';

// Issue 21 items 2 and 3: order numbers on every sale (mail, PDF, history, admin search, payments
// inbox) and no second purchase of a held licence (docs/decisions/0030-order-numbers.md).

const run = promisify(execFile);
const ORDER_NUMBER = /^LS-(\d{4})-[0-9A-HJKMNP-TV-Z]{6}$/;

let shop: ShopWithStripe;
let smtp: TestSmtp;
let admin: TestClient;
let licenseId: number;
let otherLicenseId: number;
let scratch: string;
let seq = 0;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'order-numbers-'));
  smtp = await startSmtp();
  shop = await startShopWithStripe({ smtpUrl: smtp.url });
  const actor = { id: 'test', email: 'test' };
  const { orm } = shop.runtime.deps;
  licenseId = (
    await createLicense(
      orm,
      shop.runtime.deps.files,
      actor,
      { name: 'ACLS 二次救命処置ライセンス', description: '', price: 5500 },
      [],
    )
  ).id;
  otherLicenseId = (
    await createLicense(
      orm,
      shop.runtime.deps.files,
      actor,
      { name: 'PALS 小児二次救命処置ライセンス', description: '', price: 6600 },
      [],
    )
  ).id;
  await createOrPromoteAdmin(orm, { email: 'orders-admin@example.jp', password: 'admin-pass-123' });
  admin = new TestClient(shop.app, '10.52.9.9');
  expect((await admin.login('orders-admin@example.jp', 'admin-pass-123')).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await shop?.stop();
  await smtp?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function member() {
  const email = `orders${++seq}-${Date.now()}@example.jp`;
  const user = await aMember(shop.runtime.deps.orm, {
    email,
    password: 'buyer-pass-123',
    lastName: '注文',
    firstName: `花子${seq}`,
    emailVerified: true,
    affiliation: 5,
    affiliationName: '〇〇病院',
  });
  const client = new TestClient(shop.app, `10.52.0.${seq}`);
  expect((await client.login(email, 'buyer-pass-123')).status).toBe(200);
  return { client, id: user.id, email };
}
type Member = Awaited<ReturnType<typeof member>>;

async function startPurchase(buyer: Member, license = licenseId) {
  const res = await buyer.client.post('/api/licenses/stripe', { licenseId: license, distribution: true });
  expect(res.status, await res.clone().text()).toBe(200);
  return new URL((await res.json()).url).pathname.split('/').pop() as string;
}

interface Status {
  state: string;
  sale_id: number | null;
  order_number: string | null;
  konbini: { url: string | null; expires_at: string } | null;
}
const statusOf = async (buyer: Member, sessionId: string) =>
  (await (await buyer.client.get(`/api/checkout/sessions/${sessionId}`)).json()) as Status;

const buy = (buyer: Member, method: 'card' | 'konbini' = 'card') => buyThroughStripe(shop, buyer.client, licenseId, method);

const japanYearMonth = (date: Date) => {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: 'Asia/Tokyo', year: '2-digit', month: '2-digit' }).formatToParts(
    date,
  );
  return `${parts.find((p) => p.type === 'year')?.value}${parts.find((p) => p.type === 'month')?.value}`;
};

describe('order numbers', () => {
  it('every sale gets a unique LS-YYMM-XXXXXX number, shown on the thanks page, the history and to administrators', async () => {
    const buyer = await member();
    const { saleId, orderNumber } = await buy(buyer);
    expect(orderNumber).toMatch(ORDER_NUMBER);
    // The Japan year and month of the sale.
    expect(ORDER_NUMBER.exec(orderNumber)?.[1]).toBe(japanYearMonth(new Date()));

    const history = await (await buyer.client.get(`/api/sales/user/${buyer.id}`)).json();
    expect(history.sales).toEqual([expect.objectContaining({ id: saleId, order_number: orderNumber, license_id: licenseId })]);

    const list = await (await admin.get('/api/sales?per_page=100')).json();
    expect(list.sales.find((s: { id: number }) => s.id === saleId)).toMatchObject({ order_number: orderNumber });

    // Konbini sales get one too, and numbers never repeat.
    const others = [];
    for (let i = 0; i < 6; i++) others.push((await buy(await member(), i % 2 ? 'konbini' : 'card')).orderNumber);
    for (const number of others) expect(number).toMatch(ORDER_NUMBER);
    expect(new Set([orderNumber, ...others]).size).toBe(7);
    const [dupes] = await shop.runtime.deps.orm.em
      .fork()
      .execute<{ n: number }[]>(
        'select count(*)::int as n from (select order_number from sales group by order_number having count(*) > 1) d',
      );
    expect(dupes?.n).toBe(0);
    // The database refuses a repeat (the unique index the look-ups use).
    await expect(
      shop.runtime.deps.orm.em
        .fork()
        .execute('update sales set order_number = ? where id <> ? and order_number = ?', [orderNumber, saleId, others[0]]),
    ).rejects.toThrow(/sales_order_number_unique/);
  }, 60_000);

  it('the purchase and registration mails give 「ご注文番号」', async () => {
    const buyer = await member();
    const { saleId, orderNumber } = await buy(buyer);
    const mail = await smtp.waitFor(
      (m) => smtp.to(buyer.email)(m) && m.subject === '【ライセンスストア】ご購入ありがとうございます',
    );
    expect(mail.text).toContain(`ご注文番号：${orderNumber}`);
    expect(String(mail.html)).toContain(`ご注文番号：${orderNumber}`);

    // 登録完了 (status 2) carries it too.
    for (const status of [1, 2]) {
      const moved = await admin.post('/api/sales/update', { status, licenseId, saleIds: [saleId] });
      expect(moved.status, await moved.clone().text()).toBe(200);
    }
    const registered = await smtp.waitFor(
      (m) => smtp.to(buyer.email)(m) && m.subject === '【ライセンスストア】ライセンスの登録が完了しました',
    );
    expect(registered.text).toContain(`ご注文番号：${orderNumber}`);
  }, 30_000);

  it('the receipt PDF prints 注文番号', async () => {
    const buyer = await member();
    const { saleId, orderNumber } = await buy(buyer);
    const state = await (await buyer.client.get(`/api/sales/${saleId}/receipt-addressee`)).json();
    expect(state.order_number).toBe(orderNumber);
    expect((await buyer.client.put(`/api/sales/${saleId}/receipt-addressee`, { addressee: 'name' })).status).toBe(200);
    const res = await buyer.client.get(`/api/sales/${saleId}/receipt`);
    expect(res.status).toBe(200);
    const file = join(scratch, `receipt-${saleId}.pdf`);
    await writeFile(file, Buffer.from(await res.arrayBuffer()));
    const { stdout } = await run('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-']);
    expect(stdout.replace(/\s+/g, ' ')).toContain(`注文番号 ${orderNumber}`);
  });

  it("the admin sales list's q finds a sale by its order number, in any case, with or without hyphens", async () => {
    const buyer = await member();
    const { saleId, orderNumber } = await buy(buyer);
    const compact = orderNumber.replaceAll('-', '').toLowerCase();
    for (const q of [orderNumber, orderNumber.toLowerCase(), compact, ` ${orderNumber.replaceAll('-', ' ')} `]) {
      const res = await admin.get(`/api/sales?${new URLSearchParams({ q })}`);
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(
        body.sales.map((s: { id: number }) => s.id),
        q,
      ).toEqual([saleId]);
      expect(body.total).toBe(1);
      const counts = await (await admin.get(`/api/sales/counts?${new URLSearchParams({ q })}`)).json();
      expect(counts.counts.awaiting).toBe(1);
    }
    // Another well-formed number finds nothing; a name search still works.
    const other = `LS-0001-${orderNumber.slice(-6)}`;
    expect((await (await admin.get(`/api/sales?${new URLSearchParams({ q: other })}`)).json()).sales).toEqual([]);
    const byEmail = await (await admin.get(`/api/sales?${new URLSearchParams({ q: buyer.email })}`)).json();
    expect(byEmail.sales.map((s: { id: number }) => s.id)).toEqual([saleId]);

    // The exact look-up walks the unique index.
    const plan = await shop.runtime.deps.orm.em
      .fork()
      .execute<{ 'QUERY PLAN': string }[]>('explain select id from sales s where s.order_number = ?', [orderNumber]);
    expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toContain('sales_order_number_unique');
  });

  it('the payments inbox finds the events of a sale by its order number and shows it', async () => {
    const buyer = await member();
    const { sessionId, orderNumber } = await buy(buyer);
    const found = await eventually(
      async () => {
        const res = await admin.get(`/api/payments/events?${new URLSearchParams({ order_number: orderNumber.toLowerCase() })}`);
        expect(res.status).toBe(200);
        const body = await res.json();
        return body.events.length ? body : null;
      },
      10_000,
      'the inbox events',
    );
    expect(found.events.length).toBeGreaterThanOrEqual(1);
    for (const event of found.events) {
      expect(event).toMatchObject({ stripe_session_id: sessionId, order_number: orderNumber });
    }
    const unknown = await (await admin.get('/api/payments/events?order_number=LS-0001-ZZZZZZ')).json();
    expect(unknown).toMatchObject({ events: [], total: 0 });
    const bad = await admin.get('/api/payments/events?order_number=not-a-number');
    expect(bad.status).toBe(422);
    expect((await bad.json()).errors.order_number).toEqual(['注文番号は「LS-2611-7K3Q9M」の形で入力してください。']);
  });
});

describe('no second purchase (POST /api/licenses/stripe)', () => {
  it('answers 409 already_purchased for a licence the member holds; another licence, or after a refund, may be bought', async () => {
    const buyer = await member();
    const { saleId, orderNumber } = await buy(buyer);
    const again = await buyer.client.post('/api/licenses/stripe', { licenseId, distribution: true });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ code: 'already_purchased', message: 'このライセンスは購入済みです。' });

    // Two at once: both refused, no checkout recorded.
    const [countBefore] = await shop.runtime.deps.orm.em
      .fork()
      .execute<{ n: number }[]>('select count(*)::int as n from checkout_sessions where user_id = ?', [buyer.id]);
    const both = await Promise.all([
      buyer.client.post('/api/licenses/stripe', { licenseId, distribution: true }),
      buyer.client.post('/api/licenses/stripe', { licenseId, distribution: true }),
    ]);
    expect(both.map((r) => r.status)).toEqual([409, 409]);
    const [countAfter] = await shop.runtime.deps.orm.em
      .fork()
      .execute<{ n: number }[]>('select count(*)::int as n from checkout_sessions where user_id = ?', [buyer.id]);
    expect(countAfter?.n).toBe(countBefore?.n);

    // The member's holdings (the catalogue's 購入済み).
    const holdings = await (await buyer.client.get('/api/me/holdings')).json();
    expect(holdings.holdings).toEqual([
      expect.objectContaining({ license_id: licenseId, state: 'purchased', sale_id: saleId, order_number: orderNumber }),
    ]);
    expect(new Date(holdings.holdings[0].purchased_at).getTime()).toBeGreaterThan(Date.now() - 120_000);

    // Another licence is fine.
    expect((await buyer.client.post('/api/licenses/stripe', { licenseId: otherLicenseId, distribution: true })).status).toBe(200);

    // Once refunded, the licence is no longer held.
    const paymentIntent = (
      await shop.runtime.deps.orm.em
        .fork()
        .execute<{ pi: string }[]>('select stripe_payment_intent_id as pi from sales where id = ?', [saleId])
    )[0]?.pi as string;
    shop.emulator.refund(paymentIntent);
    await eventually(
      async () => (await (await buyer.client.get(`/api/sales/user/${buyer.id}`)).json()).sales[0]?.refunded_at ?? null,
      15_000,
      'the refund',
    );
    expect((await buyer.client.post('/api/licenses/stripe', { licenseId, distribution: true })).status).toBe(200);
    expect((await (await buyer.client.get('/api/me/holdings')).json()).holdings).toEqual([]);
  }, 60_000);

  it('answers 409 payment_pending with the voucher while a konbini payment for it is awaited', async () => {
    const buyer = await member();
    const sessionId = await startPurchase(buyer);
    shop.emulator.pay(sessionId, 'konbini');
    const status = await eventually(
      async () => {
        const s = await statusOf(buyer, sessionId);
        return s.state === 'awaiting_payment' && s.konbini ? s : null;
      },
      15_000,
      'the konbini voucher',
    );
    const again = await buyer.client.post('/api/licenses/stripe', { licenseId, distribution: true });
    expect(again.status).toBe(409);
    const body = await again.json();
    expect(body).toMatchObject({
      code: 'payment_pending',
      message:
        'このライセンスはコンビニでのお支払いをお待ちしています。お支払い番号（払込票）に沿って、期限までにお支払いください。',
      voucher_url: status.konbini?.url,
      expires_at: status.konbini?.expires_at,
    });
    expect(body.voucher_url).toMatch(/^https?:\/\//);

    const holdings = await (await buyer.client.get('/api/me/holdings')).json();
    expect(holdings.holdings).toEqual([
      expect.objectContaining({
        license_id: licenseId,
        state: 'payment_pending',
        voucher_url: status.konbini?.url,
        expires_at: status.konbini?.expires_at,
      }),
    ]);

    // Paid: now it is held.
    shop.emulator.settleKonbini(sessionId, true);
    await eventually(async () => (await statusOf(buyer, sessionId)).sale_id, 15_000, 'the konbini sale');
    const held = await buyer.client.post('/api/licenses/stripe', { licenseId, distribution: true });
    expect(held.status).toBe(409);
    expect((await held.json()).code).toBe('already_purchased');
  }, 40_000);

  it('GET /api/me/holdings needs a signed-in member and is empty for a new one', async () => {
    expect((await new TestClient(shop.app).get('/api/me/holdings')).status).toBe(401);
    const buyer = await member();
    const res = await buyer.client.get('/api/me/holdings');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toContain('no-store');
    expect(await res.json()).toEqual({ holdings: [] });
  });
});
