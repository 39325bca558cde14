import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sweeper } from '../../src/events/sweeper.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { bankTransferSweep } from '../../src/modules/checkout/index.ts';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { pdfText } from '../support/pdf.ts';
import { settled } from '../support/settle.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { type ShopWithStripe, startShopWithStripe, TEST_STRIPE_KEY } from '../support/stripe.ts';
import { eventually } from '../support/wait.ts';

// Issue 34 item 1: 銀行振込 through Stripe Checkout's customer_balance (jp_bank_transfer), end to end
// through the emulator: the session's parameters, the pending pages and mails, one sale however often
// the paid event comes, the lapse by Stripe's failed event and by our deadline (docs/decisions/0046).

let shop: ShopWithStripe;
let smtp: TestSmtp;
let stripe: Stripe;
let licenseId: number;
let seq = 0;

beforeAll(async () => {
  smtp = await startSmtp();
  shop = await startShopWithStripe({ smtpUrl: smtp.url, env: { BANK_TRANSFER_DAYS: '5' } });
  const url = new URL(shop.stripeUrl);
  stripe = new Stripe(TEST_STRIPE_KEY, { host: url.hostname, port: Number(url.port), protocol: 'http' });
  licenseId = (
    await createLicense(
      shop.runtime.deps.orm,
      shop.runtime.deps.files,
      { id: 'test', email: 'test' },
      { name: 'JPTEC 外傷病院前救護ライセンス', description: '', price: 13200 },
      [],
    )
  ).id;
  await createOrPromoteAdmin(shop.runtime.deps.orm, { email: 'transfer-admin@example.jp', password: 'admin-pass-123' });
}, 60_000);
afterAll(async () => {
  await shop?.stop();
  await smtp?.close();
});

async function member() {
  const email = `transfer${++seq}-${Date.now()}@example.jp`;
  const user = await aMember(shop.runtime.deps.orm, {
    email,
    password: 'buyer-pass-123',
    lastName: '振込',
    firstName: `次郎${seq}`,
    emailVerified: true,
    affiliation: 1,
    affiliationName: '〇〇市消防局',
  });
  const client = new TestClient(shop.app, `10.62.0.${seq}`);
  expect((await client.login(email, 'buyer-pass-123')).status).toBe(200);
  return { client, id: user.id, email };
}
type Member = Awaited<ReturnType<typeof member>>;

interface BankTransfer {
  bank_name: string;
  branch_name: string;
  account_type_label: string;
  account_number: string;
  account_holder_name: string;
  amount: number;
  expires_at: string;
}
interface Status {
  state: string;
  sale_id: number | null;
  order_number: string | null;
  bank_transfer: BankTransfer | null;
}
const statusOf = async (buyer: Member, sessionId: string) =>
  (await (await buyer.client.get(`/api/checkout/sessions/${sessionId}`)).json()) as Status;

/** Starts a purchase and chooses 銀行振込 on the emulator's hosted page, as a member would. */
async function transferOrder(buyer: Member) {
  const res = await buyer.client.post('/api/licenses/stripe', { licenseId, distribution: true });
  expect(res.status, await res.clone().text()).toBe(200);
  const sessionId = new URL((await res.json()).url).pathname.split('/').pop() as string;
  const chosen = await fetch(`${shop.stripeUrl}/c/pay/${sessionId}/bank_transfer`, { method: 'POST', redirect: 'manual' });
  expect(chosen.status).toBe(303);
  const pending = await eventually(
    async () => {
      const s = await statusOf(buyer, sessionId);
      return s.bank_transfer ? s : null;
    },
    15_000,
    'the bank details',
  );
  return { sessionId, pending };
}

const jst = (iso: string) =>
  new Intl.DateTimeFormat('ja-JP', {
    timeZone: 'Asia/Tokyo',
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
  }).format(new Date(iso));

const count = async (sqlText: string, params: unknown[]) =>
  (await shop.runtime.deps.orm.em.fork().execute<{ n: number }[]>(sqlText, params))[0]?.n;

async function sweepAt(at: Date) {
  const sweeper = new Sweeper(shop.runtime.deps.orm, shop.runtime.deps.queues, createLogger('silent'), {
    files: shop.runtime.deps.files,
    sources: [bankTransferSweep(() => at)],
  });
  return eventually(
    async () => {
      const report = await sweeper.run();
      return report.skipped ? null : report;
    },
    10_000,
    'a sweep',
  );
}

describe('銀行振込 through Stripe Checkout', () => {
  it('offers customer_balance with jp_bank_transfer to one Stripe Customer per member, kept', async () => {
    const buyer = await member();
    const first = await buyer.client.post('/api/licenses/stripe', { licenseId, distribution: true });
    const sessionId = new URL((await first.json()).url).pathname.split('/').pop() as string;
    const session = await stripe.checkout.sessions.retrieve(sessionId);
    expect(session.payment_method_types).toEqual(['card', 'konbini', 'customer_balance']);
    expect(session.payment_method_options?.customer_balance).toMatchObject({
      funding_type: 'bank_transfer',
      bank_transfer: { type: 'jp_bank_transfer' },
    });
    const customer = String(session.customer);
    expect(customer).toMatch(/^cus_/);
    expect(((await stripe.customers.retrieve(customer)) as Stripe.Customer).email).toBe(buyer.email);
    expect(await count('select count(*)::int as n from checkout_customers where user_id = ?', [buyer.id])).toBe(1);
    // The hosted page offers it.
    expect(await (await fetch(`${shop.stripeUrl}/c/pay/${sessionId}`)).text()).toContain('銀行振込');
    // A second checkout (the first was left open) uses the same customer.
    await stripe.checkout.sessions.expire(sessionId);
    await eventually(async () => (await statusOf(buyer, sessionId)).state === 'expired', 15_000, 'expired');
    const again = await buyer.client.post('/api/licenses/stripe', { licenseId, distribution: true });
    const second = new URL((await again.json()).url).pathname.split('/').pop() as string;
    expect((await stripe.checkout.sessions.retrieve(second)).customer).toBe(customer);
  });

  it('a Customer Stripe failed to create is tried afresh on the next checkout, not its error again', async () => {
    const buyer = await member();
    shop.emulator.fail('customers', { status: 500, type: 'api_error', message: 'An unknown error occurred.' });
    try {
      const refused = await buyer.client.post('/api/licenses/stripe', { licenseId, distribution: true });
      expect(refused.status, await refused.clone().text()).toBe(503);
    } finally {
      shop.emulator.fail('customers', null);
    }
    const again = await buyer.client.post('/api/licenses/stripe', { licenseId, distribution: true });
    expect(again.status, await again.clone().text()).toBe(200);
    const sessionId = new URL((await again.json()).url).pathname.split('/').pop() as string;
    expect(String((await stripe.checkout.sessions.retrieve(sessionId)).customer)).toMatch(/^cus_/);
    expect(await count('select count(*)::int as n from checkout_customers where user_id = ?', [buyer.id])).toBe(1);
  });

  it('waits as お振込待ち with the virtual account on the thanks page, history and a mail; paid twice → one sale, same number', async () => {
    const buyer = await member();
    const { sessionId, pending } = await transferOrder(buyer);
    expect(pending.state).toBe('awaiting_payment');
    expect(pending.order_number).toMatch(/^LS-\d{4}-/);
    const bank = pending.bank_transfer as BankTransfer;
    expect(bank).toMatchObject({ bank_name: 'テスト銀行', branch_name: 'テスト支店', account_type_label: '普通', amount: 13200 });
    expect(bank.account_number).toMatch(/^\d{7}$/);
    // 23:59:59 JST, BANK_TRANSFER_DAYS (5) days on.
    expect(new Date(new Date(bank.expires_at).getTime() + 1000).toISOString()).toMatch(/T15:00:00\.000Z$/);
    const days = (new Date(bank.expires_at).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(5);
    expect(days).toBeLessThanOrEqual(6);

    const mail = await smtp.waitFor((m) => smtp.to(buyer.email)(m) && m.subject?.includes('お振込先のご案内') === true);
    expect(mail.subject).toBe('【ライセンスストア】銀行振込のお振込先のご案内');
    for (const text of [
      `ご注文番号：${pending.order_number}`,
      `/users/${buyer.id}/orders/${pending.order_number}`,
      'お振込金額：¥13,200（税込）',
      `お振込期限：${jst(bank.expires_at)}（日本時間）`,
      `口座番号：${bank.account_number}`,
      `口座名義：${bank.account_holder_name}`,
      '支店：テスト支店',
      '口座種別：普通',
      'Stripe',
    ]) {
      expect(mail.text).toContain(text);
    }
    // The admin's お支払い待ち list holds it.
    const admin = new TestClient(shop.app, '10.62.9.9');
    expect((await admin.login('transfer-admin@example.jp', 'admin-pass-123')).status).toBe(200);
    const list = await (await admin.get('/api/payments/pending-konbini?state=awaiting&per_page=100')).json();
    expect(list.konbini_payments.find((p: { order_number: string }) => p.order_number === pending.order_number)).toMatchObject({
      payment_method: 'bank_transfer',
      payment_method_label: '銀行振込',
      state_label: 'お支払い待ち',
    });
    // A second purchase of the licence is refused while the transfer is awaited.
    const second = await buyer.client.post('/api/licenses/stripe', { licenseId, distribution: true });
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({
      code: 'payment_pending',
      order_url: `/users/${buyer.id}/orders/${pending.order_number}`,
    });

    const paid = await fetch(`${shop.stripeUrl}/_emulator/sessions/${sessionId}/bank-transfer/paid`, { method: 'POST' });
    expect(paid.status).toBe(200);
    const { event } = (await paid.json()) as { event: string };
    const record = shop.emulator.events.find((e) => e.id === event);
    expect(record?.type).toBe('checkout.session.async_payment_succeeded');
    const sold = await eventually(
      async () => {
        const s = await statusOf(buyer, sessionId);
        return s.sale_id ? s : null;
      },
      15_000,
      'the sale',
    );
    expect(sold.order_number).toBe(pending.order_number);
    // Stripe delivers it again, five times at once: still one sale.
    await Promise.all(Array.from({ length: 5 }, () => shop.emulator.deliver(record as never)));
    await settled(shop.runtime.deps, 'the redeliveries');
    expect(
      await count(
        'select count(*)::int as n from sales where checkout_session_id = (select id from checkout_sessions where stripe_session_id = ?)',
        [sessionId],
      ),
    ).toBe(1);
    const history = await (await buyer.client.get(`/api/sales/user/${buyer.id}`)).json();
    expect(history.sales).toHaveLength(1);
    expect(history.sales[0].order_number).toBe(pending.order_number);
    // The emulator's page says it is paid; a second "paid" is refused.
    expect((await fetch(`${shop.stripeUrl}/_emulator/sessions/${sessionId}/bank-transfer/paid`, { method: 'POST' })).status).toBe(
      409,
    );
  });

  it('async_payment_failed lapses it with one mail, and the pages show no account any more', async () => {
    const buyer = await member();
    const { sessionId, pending } = await transferOrder(buyer);
    const failed = await fetch(`${shop.stripeUrl}/_emulator/sessions/${sessionId}/bank-transfer/failed`, { method: 'POST' });
    expect(failed.status).toBe(200);
    const mail = await smtp.waitFor((m) => smtp.to(buyer.email)(m) && m.subject?.includes('振込期限切れ') === true);
    expect(mail.subject).toBe('【ライセンスストア】銀行振込の振込期限切れのお知らせ');
    expect(mail.text).toContain(`ご注文番号：${pending.order_number}`);
    const after = await eventually(
      async () => {
        const s = await statusOf(buyer, sessionId);
        return s.state === 'payment_failed' ? s : null;
      },
      15_000,
      'the lapse',
    );
    expect(after.bank_transfer).toBeNull();
    await settled(shop.runtime.deps, 'the lapse mail');
    expect(
      await count("select count(*)::int as n from mail_deliveries where user_id = ? and template = 'bank-transfer-lapsed'", [
        buyer.id,
      ]),
    ).toBe(1);
  });

  it('reminds once two days before the deadline, and lapses it at the deadline with one mail', async () => {
    const buyer = await member();
    const { sessionId, pending } = await transferOrder(buyer);
    const deadline = new Date((pending.bank_transfer as BankTransfer).expires_at);
    const checkoutId = (
      await shop.runtime.deps.orm.em
        .fork()
        .execute<{ id: string }[]>('select id from checkout_sessions where stripe_session_id = ?', [sessionId])
    )[0]?.id;
    const events = (name: string) =>
      count("select count(*)::int as n from outbox_events where name = ? and payload->>'checkoutId' = ?", [name, checkoutId]);
    // 09:00 JST two days before the deadline's day.
    const nine = new Date(deadline.getTime() + 1000 - 3 * 86_400_000 + 9 * 3_600_000);
    await sweepAt(new Date(nine.getTime() - 60_000));
    expect(await events('BankTransferReminderDue')).toBe(0);
    await sweepAt(nine);
    await sweepAt(new Date(nine.getTime() + 3_600_000));
    expect(await events('BankTransferReminderDue')).toBe(1);
    const reminder = await smtp.waitFor((m) => smtp.to(buyer.email)(m) && m.subject?.includes('お振込期限が近づいて') === true);
    expect(reminder.text).toContain(`ご注文番号：${pending.order_number}`);
    expect(reminder.text).toContain(`口座番号：${pending.bank_transfer?.account_number}`);

    await sweepAt(new Date(deadline.getTime() - 1000));
    expect(await events('BankTransferLapsed')).toBe(0);
    await sweepAt(new Date(deadline.getTime() + 1000));
    await sweepAt(new Date(deadline.getTime() + 60_000));
    expect(await events('BankTransferLapsed')).toBe(1);
    const lapsed = await smtp.waitFor((m) => smtp.to(buyer.email)(m) && m.subject?.includes('振込期限切れ') === true);
    expect(lapsed.text).toContain(`ご注文番号：${pending.order_number}`);
    // Stripe's payment intent is cancelled, so a late transfer stays in the customer's balance.
    const pi = String(shop.emulator.sessions.get(sessionId)?.payment_intent);
    await eventually(async () => (await stripe.paymentIntents.retrieve(pi)).status === 'canceled', 15_000, 'the cancel');
    await settled(shop.runtime.deps, 'the lapse');
    expect(
      await count("select count(*)::int as n from mail_deliveries where user_id = ? and template = 'bank-transfer-lapsed'", [
        buyer.id,
      ]),
    ).toBe(1);
    expect((await statusOf(buyer, sessionId)).state).toBe('payment_failed');
  });
});

describe('the member’s order page and 御請求書', () => {
  it('shows the order with 消費税, the account and Stripe’s reconciling note; the invoice PDF reads back; paid it shows the sale', async () => {
    const buyer = await member();
    const { sessionId, pending } = await transferOrder(buyer);
    const path = `/api/users/${buyer.id}/orders/${pending.order_number}`;
    const res = await buyer.client.get(path);
    expect(res.status, await res.clone().text()).toBe(200);
    const { order } = await res.json();
    expect(order).toMatchObject({
      order_number: pending.order_number,
      license_name: 'JPTEC 外傷病院前救護ライセンス',
      amount: 13200,
      tax_rate: 10,
      tax_amount: 1200,
      payment_method: 'bank_transfer',
      payment_method_label: '銀行振込',
      state: 'awaiting_payment',
      state_label: 'お振込待ち',
      sale_id: null,
    });
    expect(order.bank_transfer.account_number).toBe(pending.bank_transfer?.account_number);
    expect(order.transfer_note).toContain('Stripe');
    // Any case or hyphens of the number find it; another member cannot read it; an unknown number is 404.
    expect(
      (await buyer.client.get(`/api/users/${buyer.id}/orders/${String(pending.order_number).replaceAll('-', '').toLowerCase()}`))
        .status,
    ).toBe(200);
    expect((await (await member()).client.get(path)).status).toBe(403);
    expect((await buyer.client.get(`/api/users/${buyer.id}/orders/LS-0000-000000`)).status).toBe(404);

    const invoice = await buyer.client.get(`${path}/invoice?${new URLSearchParams({ addressee: 'organisation' })}`);
    expect(invoice.status, await invoice.clone().text()).toBe(200);
    expect(invoice.headers.get('content-type')).toBe('application/pdf');
    const text = await pdfText(invoice);
    for (const expected of [
      '御 請 求 書',
      '〇〇市消防局 御中',
      `注文番号 ${pending.order_number}`,
      '¥13,200',
      'うち消費税（10%）¥1,200',
      '10%対象',
      '登録番号 T',
      `口座番号 ${pending.bank_transfer?.account_number}`,
      'テスト支店',
      'お支払期限',
    ]) {
      expect(text).toContain(expected);
    }
    const custom = await buyer.client.get(
      `${path}/invoice?${new URLSearchParams({ addressee: 'custom', addressee_text: '〇〇県防災航空隊', honorific: '御中' })}`,
    );
    expect(await pdfText(custom)).toContain('〇〇県防災航空隊 御中');
    // Bad input: the 422 shape, nothing made.
    expect((await buyer.client.get(`${path}/invoice?addressee=custom`)).status).toBe(422);
    expect((await buyer.client.get(`${path}/invoice?addressee=nobody`)).status).toBe(422);

    await fetch(`${shop.stripeUrl}/_emulator/sessions/${sessionId}/bank-transfer/paid`, { method: 'POST' });
    const paid = await eventually(
      async () => {
        const body = await (await buyer.client.get(path)).json();
        return body.order.sale_id ? body.order : null;
      },
      15_000,
      'the sale',
    );
    expect(paid).toMatchObject({ state: 'paid', bank_transfer: null, member_state_label: 'お支払い済み（登録準備中）' });
    expect(paid.paid_at).toBeTruthy();
    expect((await buyer.client.get(`${path}/invoice?addressee=name`)).status).toBe(409);
  });

  it('records each 御請求書: the same 宛名 again is the same invoice (number and date kept), another 宛名 the next number', async () => {
    const buyer = await member();
    const { pending } = await transferOrder(buyer);
    const path = `/api/users/${buyer.id}/orders/${pending.order_number}/invoice`;
    const get = (params: Record<string, string>) => buyer.client.get(`${path}?${new URLSearchParams(params)}`);
    const first = await get({ addressee: 'organisation' });
    expect(first.status, await first.clone().text()).toBe(200);
    const number = `INV-${pending.order_number}`;
    expect(first.headers.get('x-invoice-number')).toBe(number);
    const firstText = await pdfText(first);
    expect(firstText).toContain(`請求書番号 ${number}`);
    const again = await get({ addressee: 'organisation' });
    expect(again.headers.get('x-invoice-number')).toBe(number);
    const againText = await pdfText(again);
    expect(againText).toContain(`請求書番号 ${number}`);
    expect(againText.match(/発行日 \S+/)?.[0]).toBe(firstText.match(/発行日 \S+/)?.[0]);
    const other = await get({ addressee: 'custom', addressee_text: '〇〇県防災航空隊', honorific: '御中' });
    expect(other.headers.get('x-invoice-number')).toBe(`${number}-2`);
    expect(await pdfText(other)).toContain(`請求書番号 ${number}-2`);
    const rows = await shop.runtime.deps.orm.em
      .fork()
      .execute<{ invoice_number: string; user_id: string; amount: number; addressee: string; downloads: number }[]>(
        'select invoice_number, user_id, amount, addressee, downloads from invoices where order_number = ? order by id',
        [pending.order_number],
      );
    expect(rows).toEqual([
      { invoice_number: number, user_id: buyer.id, amount: 13200, addressee: '〇〇市消防局 御中', downloads: 2 },
      { invoice_number: `${number}-2`, user_id: buyer.id, amount: 13200, addressee: '〇〇県防災航空隊 御中', downloads: 1 },
    ]);
    // The procedure page's state on load: お振込, with the order (and its account) to go to.
    const holdings = await (await buyer.client.get('/api/me/holdings')).json();
    expect(holdings.holdings).toEqual([
      expect.objectContaining({
        license_id: licenseId,
        state: 'payment_pending',
        payment_method: 'bank_transfer',
        order_number: pending.order_number,
      }),
    ]);
  });

  it('the history lists every order by order time, newest first, whatever its state', async () => {
    const buyer = await member();
    const lapsedOrder = await transferOrder(buyer);
    await fetch(`${shop.stripeUrl}/_emulator/sessions/${lapsedOrder.sessionId}/bank-transfer/failed`, { method: 'POST' });
    await eventually(async () => (await statusOf(buyer, lapsedOrder.sessionId)).state === 'payment_failed', 15_000, 'lapsed');
    const paidOrder = await transferOrder(buyer);
    await fetch(`${shop.stripeUrl}/_emulator/sessions/${paidOrder.sessionId}/bank-transfer/paid`, { method: 'POST' });
    await eventually(async () => (await statusOf(buyer, paidOrder.sessionId)).sale_id, 15_000, 'paid');
    const history = await (await buyer.client.get(`/api/sales/user/${buyer.id}`)).json();
    expect(history.orders.map((o: { order_number: string; state_label: string }) => [o.order_number, o.state_label])).toEqual([
      [paidOrder.pending.order_number, 'お支払い済み（登録準備中）'],
      [lapsedOrder.pending.order_number, '期限切れ（お支払いはありません）'],
    ]);
  });
});
