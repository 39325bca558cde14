import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sweeper } from '../../src/events/sweeper.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { konbiniReminders } from '../../src/modules/checkout/index.ts';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { settled } from '../support/settle.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { buyThroughStripe, type ShopWithStripe, startShopWithStripe, TEST_STRIPE_KEY } from '../support/stripe.ts';
import { eventually } from '../support/wait.ts';

let shop: ShopWithStripe;
let smtp: TestSmtp;
let stripe: Stripe;
let licenseId: number;
let seq = 0;

beforeAll(async () => {
  smtp = await startSmtp();
  shop = await startShopWithStripe({ smtpUrl: smtp.url });
  const url = new URL(shop.stripeUrl);
  stripe = new Stripe(TEST_STRIPE_KEY, { host: url.hostname, port: Number(url.port), protocol: 'http' });
  const license = await createLicense(
    shop.runtime.deps.orm,
    shop.runtime.deps.files,
    { id: 'test', email: 'test' },
    { name: 'BLS 一次救命処置ライセンス', description: '', price: 8800 },
    [],
  );
  licenseId = license.id;
  await createOrPromoteAdmin(shop.runtime.deps.orm, { email: 'konbini-admin@example.jp', password: 'admin-pass-123' });
}, 60_000);
afterAll(async () => {
  await shop?.stop();
  await smtp?.close();
});

async function member() {
  const email = `konbini${++seq}-${Date.now()}@example.jp`;
  const user = await aMember(shop.runtime.deps.orm, {
    email,
    password: 'buyer-pass-123',
    lastName: '払込',
    firstName: `花子${seq}`,
    emailVerified: true,
    affiliation: 5,
    affiliationName: '〇〇病院',
  });
  const client = new TestClient(shop.app, `10.30.0.${seq}`);
  expect((await client.login(email, 'buyer-pass-123')).status).toBe(200);
  return { client, id: user.id, email };
}

async function admin() {
  const client = new TestClient(shop.app, '10.30.9.9');
  expect((await client.login('konbini-admin@example.jp', 'admin-pass-123')).status).toBe(200);
  return client;
}

/** The member starts a purchase and chooses konbini on the hosted page. */
async function konbiniPurchase(client: TestClient) {
  const res = await client.post('/api/licenses/stripe', { licenseId, distribution: true });
  expect(res.status, await res.clone().text()).toBe(200);
  const sessionId = new URL((await res.json()).url).pathname.split('/').pop() as string;
  const completed = shop.emulator.pay(sessionId, 'konbini');
  return { sessionId, completed, paymentIntentId: String(shop.emulator.sessions.get(sessionId)?.payment_intent) };
}

interface Voucher {
  url: string;
  expires_at: string;
  stores: { store: string; label: string; payment_code: string; confirmation_number: string | null }[];
}
interface History {
  sales: { id: number; status: number; member_state: string; member_state_label: string; refunded_at: string | null }[];
  orders: {
    order_number: string | null;
    license_name: string;
    amount: number;
    payment_method: string;
    state: string;
    state_label: string;
    voucher: Voucher | null;
    expires_at: string | null;
  }[];
}
const historyOf = async (client: TestClient, id: string) => {
  const res = await client.get(`/api/sales/user/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as History;
};
const statusOf = async (client: TestClient, sessionId: string) =>
  (await (await client.get(`/api/checkout/sessions/${sessionId}`)).json()) as { state: string; konbini: Voucher | null };
const voucherMails = async (userId: string) =>
  (
    await shop.runtime.deps.orm.em
      .fork()
      .execute<{ n: number }[]>(
        "select count(*)::int as n from mail_deliveries where user_id = ? and template = 'konbini-voucher' and status = 'sent'",
        [userId],
      )
  )[0]?.n;
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

describe('the emulator issues konbini vouchers in Stripe’s shape', () => {
  it('the payment intent waits in requires_action with konbini_display_details, due 23:59:59 JST three days on', async () => {
    const buyer = await member();
    const { paymentIntentId } = await konbiniPurchase(buyer.client);
    const pi = await stripe.paymentIntents.retrieve(paymentIntentId);
    expect(pi.status).toBe('requires_action');
    expect(pi.next_action?.type).toBe('konbini_display_details');
    const details = pi.next_action?.konbini_display_details;
    expect(details?.hosted_voucher_url).toBe(`${shop.stripeUrl}/vouchers/${paymentIntentId}`);
    for (const chain of ['familymart', 'lawson', 'ministop', 'seicomart'] as const) {
      expect(details?.stores[chain]?.payment_code).toMatch(/^\d{12}$/);
      expect(details?.stores[chain]?.confirmation_number).toMatch(/^\d{11}$/);
    }
    const expiresAt = details?.expires_at ?? 0;
    // 23:59:59 in Japan, on the third day after today (Japan's today).
    expect(new Date((expiresAt + 1) * 1000).toISOString()).toMatch(/T15:00:00\.000Z$/);
    const days = (expiresAt - Date.now() / 1000) / 86_400;
    expect(days).toBeGreaterThan(3);
    expect(days).toBeLessThanOrEqual(4);

    const page = await fetch(details?.hosted_voucher_url as string);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<html lang="ja">');
    expect(html).toContain('お支払い期限');
    expect(html).toContain(details?.stores.lawson?.payment_code);
    expect(html).toContain('ローソン');
  });
});

describe('konbini: pending → voucher stored → mail once → paid or lapsed', () => {
  it('stores the voucher read through the SDK, shows it to the buyer and mails the numbers, link and deadline once', async () => {
    const buyer = await member();
    const { sessionId, completed, paymentIntentId } = await konbiniPurchase(buyer.client);
    const status = await eventually(
      async () => {
        const s = await statusOf(buyer.client, sessionId);
        return s.state === 'awaiting_payment' ? s : null;
      },
      15_000,
      'awaiting payment',
    );
    const pi = await stripe.paymentIntents.retrieve(paymentIntentId);
    const details = pi.next_action?.konbini_display_details as Stripe.PaymentIntent.NextAction.KonbiniDisplayDetails;
    const code = details.stores.familymart?.payment_code as string;
    const confirmation = details.stores.familymart?.confirmation_number as string;
    expect(status.konbini).toEqual({
      url: details.hosted_voucher_url,
      expires_at: new Date(details.expires_at * 1000).toISOString(),
      stores: [
        { store: 'familymart', label: 'ファミリーマート', payment_code: code, confirmation_number: confirmation },
        { store: 'lawson', label: 'ローソン', payment_code: code, confirmation_number: confirmation },
        { store: 'ministop', label: 'ミニストップ', payment_code: code, confirmation_number: confirmation },
        { store: 'seicomart', label: 'セイコーマート', payment_code: code, confirmation_number: confirmation },
      ],
    });

    const mail = await smtp.waitFor(smtp.to(buyer.email));
    expect(mail.subject).toBe('【ライセンスストア】コンビニでのお支払い番号のご案内');
    expect(mail.text).toContain('BLS 一次救命処置ライセンス');
    expect(mail.text).toContain('¥8,800（税込）');
    expect(mail.text).toContain(`お支払い番号 ${code}`);
    expect(mail.text).toContain(`確認番号 ${confirmation}`);
    expect(mail.text).toContain(details.hosted_voucher_url as string);
    expect(mail.text).toContain(`お支払い期限：${jst(status.konbini?.expires_at as string)}（日本時間）`);
    expect(mail.html).toContain(`href="${details.hosted_voucher_url}"`);

    // Stripe delivers the same event again, five at once, and an operator replays it: still one mail.
    await Promise.all(Array.from({ length: 5 }, () => shop.emulator.deliver(completed)));
    const inbox = await admin();
    expect((await inbox.post(`/api/payments/events/${completed.id}/replay`, {})).status).toBe(200);
    await settled(shop.runtime.deps, 'the deliveries and the replay');
    expect(await voucherMails(buyer.id)).toBe(1);
    expect(smtp.messages.filter(smtp.to(buyer.email))).toHaveLength(1);
    const kinds = await (await inbox.get(`/api/users/${buyer.id}/mails`)).json();
    expect(kinds.mails.map((m: { kind_label: string }) => m.kind_label)).toEqual(['コンビニ払いのお支払い番号のご案内']);
  });

  it('the history lists a pending order with お支払い待ち, its voucher and deadline, then 期限切れ once it lapses', async () => {
    const buyer = await member();
    const { sessionId } = await konbiniPurchase(buyer.client);
    const pending = await eventually(
      async () => {
        const history = await historyOf(buyer.client, buyer.id);
        return history.orders[0]?.voucher ? history : null;
      },
      15_000,
      'the pending order',
    );
    expect(pending.sales).toEqual([]);
    expect(pending.orders).toHaveLength(1);
    const order = pending.orders[0];
    expect(order).toMatchObject({
      license_name: 'BLS 一次救命処置ライセンス',
      amount: 8800,
      payment_method: 'konbini',
      state: 'awaiting_payment',
      state_label: 'お支払い待ち',
    });
    expect(order?.voucher?.url).toMatch(/\/vouchers\/pi_test_/);
    expect(order?.voucher?.stores[0]?.payment_code).toMatch(/^\d{12}$/);
    expect(order?.expires_at).toBe(order?.voucher?.expires_at);

    const lapsed = shop.emulator.lapseKonbini(sessionId);
    expect(lapsed?.type).toBe('checkout.session.async_payment_failed');
    const expired = await eventually(
      async () => {
        const history = await historyOf(buyer.client, buyer.id);
        return history.orders[0]?.state === 'expired' ? history : null;
      },
      15_000,
      'the lapsed order',
    );
    expect(expired.orders[0]).toMatchObject({ state_label: '期限切れ（お支払いはありません）', voucher: null });
    expect(expired.orders[0]?.expires_at).toBeTruthy();
    expect(expired.sales).toEqual([]);
    expect((await statusOf(buyer.client, sessionId)).konbini).toBeNull();
    // The voucher page says so too.
    const pi = String(shop.emulator.sessions.get(sessionId)?.payment_intent);
    expect(await (await fetch(`${shop.stripeUrl}/vouchers/${pi}`)).text()).toContain('お支払い期限が過ぎた');
  });

  it('the emulator lapses a voucher on its own when the deadline passes', async () => {
    const buyer = await member();
    const { sessionId, paymentIntentId } = await konbiniPurchase(buyer.client);
    const pi = shop.emulator.paymentIntents.get(paymentIntentId) as {
      next_action: { konbini_display_details: { expires_at: number } };
    };
    pi.next_action.konbini_display_details.expires_at = Math.floor(Date.now() / 1000) - 1;
    await eventually(
      async () =>
        shop.emulator.events.find((e) => e.type === 'checkout.session.async_payment_failed' && e.object.id === sessionId),
      5_000,
      'the emulator’s own lapse',
    );
    expect((await stripe.paymentIntents.retrieve(paymentIntentId)).status).toBe('canceled');
  });

  it('a paid konbini order becomes a sale: お支払い済み（登録準備中）, then 登録手続き中, 登録完了 and 返金済み — never 出力待ち', async () => {
    const buyer = await member();
    const { sessionId, paymentIntentId } = await konbiniPurchase(buyer.client);
    await eventually(async () => (await historyOf(buyer.client, buyer.id)).orders.length === 1, 15_000, 'pending');
    shop.emulator.settleKonbini(sessionId, true);
    const paid = await eventually(
      async () => {
        const history = await historyOf(buyer.client, buyer.id);
        return history.sales.length ? history : null;
      },
      15_000,
      'the sale',
    );
    expect(paid.orders).toMatchObject([{ payment_method: 'konbini', state: 'paid', voucher: null }]);
    expect(paid.sales[0]).toMatchObject({ status: 0, member_state: 'paid', member_state_label: 'お支払い済み（登録準備中）' });
    const saleId = paid.sales[0]?.id as number;
    // The purchase mail names the method and what proves the payment (issue 35 item 6).
    const thanks = await smtp.waitFor(
      (m) => smtp.to(buyer.email)(m) && m.subject?.includes('ご購入ありがとうございます') === true,
    );
    expect(thanks.text).toContain('お支払い方法：コンビニ払い');
    expect(thanks.text).toContain('払込票控え（受領証）がお支払いの証明になります');

    const back = await admin();
    const label = async () => (await historyOf(buyer.client, buyer.id)).sales[0]?.member_state_label;
    expect((await back.post('/api/sales/update', { status: 1, licenseId, saleIds: [saleId] })).status).toBe(200);
    expect(await label()).toBe('登録手続き中');
    expect((await back.post('/api/sales/update', { status: 2, licenseId, saleIds: [saleId] })).status).toBe(200);
    expect(await label()).toBe('登録完了');
    shop.emulator.refund(paymentIntentId);
    await eventually(async () => (await label()) === '返金済み', 15_000, 'the refund');

    const raw = await (await buyer.client.get(`/api/sales/user/${buyer.id}`)).text();
    for (const jargon of [
      '"member_state_label":"出力待ち"',
      '"member_state_label":"処理中"',
      '"member_state_label":"登録済み"',
    ]) {
      expect(raw).not.toContain(jargon);
    }
    // An administrator reads the member's history as the member does.
    expect((await historyOf(back, buyer.id)).sales[0]?.member_state_label).toBe('返金済み');
  });

  it('a card purchase never appears as a konbini order, and another member cannot read the history', async () => {
    const buyer = await member();
    const { sessionId } = await buyThroughStripe(shop, buyer.client, licenseId);
    const history = await historyOf(buyer.client, buyer.id);
    expect(history.orders).toMatchObject([{ payment_method: 'card', state: 'paid', voucher: null }]);
    expect(history.sales[0]?.member_state_label).toBe('お支払い済み（登録準備中）');
    expect((await statusOf(buyer.client, sessionId)).konbini).toBeNull();
    const other = await member();
    expect((await other.client.get(`/api/sales/user/${buyer.id}`)).status).toBe(403);
  });
});

const sentMails = async (userId: string, kind: string) =>
  (
    await shop.runtime.deps.orm.em
      .fork()
      .execute<{ n: number }[]>(
        "select count(*)::int as n from mail_deliveries where user_id = ? and template = ? and status = 'sent'",
        [userId, kind],
      )
  )[0]?.n;

/** A pending konbini order of a new member, with its voucher stored. */
async function pendingOrder() {
  const buyer = await member();
  const { sessionId } = await konbiniPurchase(buyer.client);
  const history = await eventually(
    async () => {
      const h = await historyOf(buyer.client, buyer.id);
      return h.orders[0]?.voucher ? h : null;
    },
    15_000,
    'the pending order',
  );
  const order = { ...(history.orders[0] as History['orders'][number]), checkout_id: await checkoutIdOf(sessionId) };
  await smtp.waitFor((m) => smtp.to(buyer.email)(m) && m.subject?.includes('お支払い番号のご案内') === true);
  return { buyer, sessionId, order, deadline: new Date(order.expires_at as string) };
}

/** 09:00 Japan time on the day before `deadline`'s day (Japan time). */
function dayBeforeAtNine(deadline: Date): Date {
  const day = new Date(deadline.getTime() + 9 * 3_600_000); // the deadline's wall clock in Japan, as UTC fields
  day.setUTCHours(0, 0, 0, 0); // that day's 00:00 in Japan, still shifted by +9 h
  return new Date(day.getTime() - 24 * 3_600_000 + 9 * 3_600_000 - 9 * 3_600_000); // −1 day, 09:00, back to UTC
}

/** One real sweep (the workers' sweeper, with the reminders' clock set to `at`), retried while another sweep holds the lock. */
async function sweepAt(at: Date) {
  const sweeper = new Sweeper(shop.runtime.deps.orm, shop.runtime.deps.queues, createLogger('silent'), {
    files: shop.runtime.deps.files,
    sources: [konbiniReminders(() => at)],
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

const checkoutIdOf = async (sessionId: string) =>
  (
    await shop.runtime.deps.orm.em
      .fork()
      .execute<{ id: string }[]>('select id from checkout_sessions where stripe_session_id = ?', [sessionId])
  )[0]?.id as string;

const reminderEvents = async (checkoutId: string) =>
  (
    await shop.runtime.deps.orm.em
      .fork()
      .execute<{ n: number }[]>(
        "select count(*)::int as n from outbox_events where name = 'KonbiniPaymentReminderDue' and payload->>'checkoutId' = ?",
        [checkoutId],
      )
  )[0]?.n;

describe('konbini: the day-before reminder and the lapse notice', () => {
  it('reminds once, from 09:00 JST the day before the deadline, with the amount, numbers and deadline（日本時間）', async () => {
    const { buyer, order, deadline } = await pendingOrder();
    const nine = dayBeforeAtNine(deadline);
    // The deadline is 23:59:59 JST; the reminder is due from 09:00 JST the day before.
    expect(new Intl.DateTimeFormat('ja-JP', { timeZone: 'Asia/Tokyo', hour: 'numeric', hour12: false }).format(nine)).toBe('9時');
    expect(deadline.getTime() - nine.getTime()).toBe((24 + 15) * 3_600_000 - 1_000);

    await sweepAt(new Date(nine.getTime() - 60_000));
    expect(await reminderEvents(order.checkout_id)).toBe(0);

    const report = await sweepAt(nine);
    expect(report.recorded).toBeGreaterThanOrEqual(1);
    expect(await reminderEvents(order.checkout_id)).toBe(1);
    // Later sweeps, another worker, the next hour: still one.
    await sweepAt(new Date(nine.getTime() + 3_600_000));
    await sweepAt(nine);
    expect(await reminderEvents(order.checkout_id)).toBe(1);

    const mail = await smtp.waitFor((m) => smtp.to(buyer.email)(m) && m.subject?.includes('期限が近づいて') === true);
    expect(mail.subject).toBe('【ライセンスストア】コンビニ払いのお支払い期限が近づいています');
    expect(mail.text).toContain('BLS 一次救命処置ライセンス');
    expect(mail.text).toContain('金額：¥8,800（税込）');
    expect(mail.text).toContain(`お支払い期限：${jst(order.expires_at as string)}（日本時間）`);
    expect(mail.text).toContain(`お支払い番号 ${order.voucher?.stores[0]?.payment_code}`);
    expect(mail.text).toContain('以下の URL から');
    expect(mail.text).not.toContain('下のボタンから');
    expect(mail.text).toContain(order.voucher?.url as string);
    await settled(shop.runtime.deps, 'the reminder sweeps');
    expect(await sentMails(buyer.id, 'konbini-reminder')).toBe(1);
    const inbox = await admin();
    const kinds = await (await inbox.get(`/api/users/${buyer.id}/mails`)).json();
    expect(kinds.mails.map((m: { kind_label: string }) => m.kind_label)).toContain(
      'コンビニ払いのお支払い期限のお知らせ（前日）',
    );
  });

  it('no reminder after the deadline, for a paid order, or for an order placed on the day before', async () => {
    const late = await pendingOrder();
    await sweepAt(new Date(late.deadline.getTime() + 1_000));
    expect(await reminderEvents(late.order.checkout_id)).toBe(0);

    const paid = await pendingOrder();
    shop.emulator.settleKonbini(paid.sessionId, true);
    await eventually(async () => (await historyOf(paid.buyer.client, paid.buyer.id)).sales.length === 1, 15_000, 'the sale');
    await sweepAt(dayBeforeAtNine(paid.deadline));
    expect(await reminderEvents(paid.order.checkout_id)).toBe(0);

    // Ordered at 08:00 JST on the day before: its voucher mail is recent, no reminder at 09:00 or later.
    const fresh = await pendingOrder();
    const nine = dayBeforeAtNine(fresh.deadline);
    await shop.runtime.deps.orm.em
      .fork()
      .execute('update checkout_sessions set created_at = ? where id = ?', [
        new Date(nine.getTime() - 3_600_000),
        fresh.order.checkout_id,
      ]);
    await sweepAt(new Date(nine.getTime() + 3_600_000));
    expect(await reminderEvents(fresh.order.checkout_id)).toBe(0);
  });

  it('a lapsed konbini payment gets one 支払期限切れのお知らせ, with the deadline（日本時間） and the way to order again', async () => {
    const { buyer, sessionId, order } = await pendingOrder();
    const lapsed = shop.emulator.lapseKonbini(sessionId);
    expect(lapsed?.type).toBe('checkout.session.async_payment_failed');
    const mail = await smtp.waitFor((m) => smtp.to(buyer.email)(m) && m.subject?.includes('支払期限切れ') === true);
    expect(mail.subject).toBe('【ライセンスストア】コンビニ払いの支払期限切れのお知らせ');
    expect(mail.text).toContain('BLS 一次救命処置ライセンス');
    expect(mail.text).toContain('金額：¥8,800（税込）');
    expect(mail.text).toContain(`お支払い期限：${jst(order.expires_at as string)}（日本時間）`);
    expect(mail.text).toContain('以下の URL から');
    expect(mail.text).not.toContain('下のボタンから');
    expect(mail.text).toMatch(new RegExp(`^https?://[^/\\s]+/licenses/${licenseId}$`, 'm'));
    // Beside a button the HTML says 「下のボタンから」; only the plain text names the URL.
    expect(mail.html).toContain('下のボタンから');
    expect(mail.html).not.toContain('以下の URL から');

    // Stripe delivers the event again and an operator replays it: still one notice.
    await Promise.all(Array.from({ length: 3 }, () => shop.emulator.deliver(lapsed as never)));
    const replaying = new Date();
    const inbox = await admin();
    expect((await inbox.post(`/api/payments/events/${lapsed?.id}/replay`, {})).status).toBe(200);
    await settled(shop.runtime.deps, 'the redeliveries and the replay', { since: replaying });
    expect(await sentMails(buyer.id, 'konbini-lapsed')).toBe(1);
    const kinds = await (await inbox.get(`/api/users/${buyer.id}/mails`)).json();
    expect(kinds.mails.map((m: { kind_label: string }) => m.kind_label)).toContain('コンビニ払いの支払期限切れのお知らせ');
    // No reminder for a lapsed order either.
    await sweepAt(dayBeforeAtNine(new Date(order.expires_at as string)));
    expect(await reminderEvents(order.checkout_id)).toBe(0);
  });

  it('the thanks page’s status carries the amount (tax included) beside the voucher', async () => {
    const { buyer, sessionId } = await pendingOrder();
    const status = (await (await buyer.client.get(`/api/checkout/sessions/${sessionId}`)).json()) as {
      amount: number;
      konbini: Voucher | null;
    };
    expect(status.amount).toBe(8800);
    expect(status.konbini?.expires_at).toBeTruthy();
  });
});
