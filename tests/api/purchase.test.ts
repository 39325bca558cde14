import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { settled } from '../support/settle.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { buyThroughStripe, type ShopWithStripe, startShopWithStripe, TEST_WEBHOOK_SECRET } from '../support/stripe.ts';
import { eventually } from '../support/wait.ts';

let shop: ShopWithStripe;
let smtp: TestSmtp;
let licenseId: number;
let seq = 0;

beforeAll(async () => {
  smtp = await startSmtp();
  shop = await startShopWithStripe({ smtpUrl: smtp.url });
  const license = await createLicense(
    shop.runtime.deps.orm,
    shop.runtime.deps.files,
    { id: 'test', email: 'test' },
    { name: 'ACLS 講習ライセンス', description: '', price: 11000 },
    [],
  );
  licenseId = license.id;
  await createOrPromoteAdmin(shop.runtime.deps.orm, { email: 'admin@example.jp', password: 'admin-pass-123' });
}, 60_000);
afterAll(async () => {
  await shop?.stop();
  await smtp?.close();
});

async function member() {
  const { id, email, password } = await aMember(shop.runtime.deps.orm, {
    lastName: '購入',
    firstName: `太郎${++seq}`,
    affiliation: 4,
    affiliationName: '〇〇消防',
  });
  const client = new TestClient(shop.app, `10.20.0.${seq}`);
  expect((await client.login(email, password)).status).toBe(200);
  return { client, id, email };
}

async function startPurchase(client: TestClient, body: Record<string, unknown> = { licenseId, distribution: true }) {
  const res = await client.post('/api/licenses/stripe', body);
  expect(res.status, await res.clone().text()).toBe(200);
  const { url } = await res.json();
  const sessionId = new URL(url).pathname.split('/').pop() as string;
  return { url: url as string, sessionId };
}

const salesOf = async (client: TestClient, id: string) =>
  (await (await client.get(`/api/sales/user/${id}`)).json()).sales as {
    id: number;
    refunded_at: string | null;
    status: number;
    amount: number;
    license_name: string;
  }[];
const checkoutState = async (sessionId: string) =>
  (
    await shop.runtime.deps.orm.em.fork().execute('select state from checkout_sessions where stripe_session_id = ?', [sessionId])
  )[0]?.state as string;
const saleCount = async (sessionId: string) =>
  (
    await shop.runtime.deps.orm.em.fork().execute('select count(*)::int as n from sales where stripe_session_id = ?', [sessionId])
  )[0]?.n as number;
const inboxDone = async (eventId: string) =>
  (await shop.runtime.deps.orm.em.fork().execute('select processed_at from stripe_events where id = ?', [eventId]))[0]
    ?.processed_at;

describe('POST /api/licenses/stripe', () => {
  it('creates a Checkout Session from the price in the database, with our ids, and records it', async () => {
    const buyer = await member();
    const { url, sessionId } = await startPurchase(buyer.client, {
      licenseId: String(licenseId),
      distribution: false,
      price: 1,
      amount: 1,
    });
    expect(url.startsWith(`${shop.stripeUrl}/c/pay/cs_test_`)).toBe(true);
    expect(new URL(url).hash.length).toBeGreaterThan(10);
    const session = shop.emulator.sessions.get(sessionId);
    expect(session).toMatchObject({
      amount_total: 11000,
      currency: 'jpy',
      client_reference_id: buyer.id,
      locale: 'ja',
      status: 'open',
    });
    expect((session?.metadata as Record<string, string> | undefined)?.licenseId).toBe(String(licenseId));
    expect(await checkoutState(sessionId)).toBe('open');
    const me = await (await buyer.client.get(`/api/users/${buyer.id}`)).json();
    expect(me.user.distribution).toBe(false);
  });

  it('answers 404 for a licence that does not exist, 422 for a bad id, 401 signed out, 403 for administrators', async () => {
    const buyer = await member();
    const missing = await buyer.client.post('/api/licenses/stripe', { licenseId: 999999, distribution: true });
    expect(missing.status).toBe(404);
    expect((await missing.json()).message).toBe('エラー: ライセンスが見つかりませんでした。');
    expect((await buyer.client.post('/api/licenses/stripe', { licenseId: 'abc' })).status).toBe(422);
    expect((await new TestClient(shop.app).post('/api/licenses/stripe', { licenseId })).status).toBe(401);
    const admin = new TestClient(shop.app, '10.20.9.9');
    await admin.login('admin@example.jp', 'admin-pass-123');
    expect((await admin.post('/api/licenses/stripe', { licenseId })).status).toBe(403);
  });
});

describe('webhook → inbox → worker → sale', () => {
  it('a card payment becomes one sale with the buyer snapshot, and a receipt e-mail', async () => {
    const buyer = await member();
    const { sessionId } = await buyThroughStripe(shop, buyer.client, licenseId);
    const sales = await salesOf(buyer.client, buyer.id);
    expect(sales[0]).toMatchObject({ amount: 11000, status: 0, license_name: 'ACLS 講習ライセンス', refunded_at: null });
    const status = await (await buyer.client.get(`/api/checkout/sessions/${sessionId}`)).json();
    expect(status).toMatchObject({ state: 'complete', sale_id: sales[0]?.id });
    const receipt = await smtp.waitFor(smtp.to(buyer.email));
    expect(receipt.subject).toBe('【ライセンスストア】ご購入ありがとうございます');
    expect(receipt.text).toContain('ACLS 講習ライセンス');
    expect(receipt.text).toContain('¥11,000（税込）');
    expect(receipt.text).toContain('お支払い方法：クレジットカード');
    expect(receipt.text).not.toContain('払込票控え');
    // The shop's own receipt page (the history with the sale's receipt dialog), not Stripe's receipt.
    const receiptPage = `${shop.env.appUrl}/users/${buyer.id}?receipt=${sales[0]?.id}`;
    expect(receipt.text).toContain(receiptPage);
    expect(receipt.text).not.toContain(`${shop.stripeUrl}/receipts/`);
    expect(receipt.html).toContain(`href="${receiptPage}"`);
    const row = await shop.runtime.deps.orm.em
      .fork()
      .execute('select buyer_email, buyer_affiliation, buyer_affiliation_name from sales where stripe_session_id = ?', [
        sessionId,
      ]);
    expect(row[0]).toEqual({ buyer_email: buyer.email, buyer_affiliation: 4, buyer_affiliation_name: '〇〇消防' });
  });

  it('the same checkout.session.completed delivered 10 times at once makes one sale and one e-mail', async () => {
    const buyer = await member();
    const { sessionId } = await startPurchase(buyer.client);
    shop.emulator.hold();
    shop.emulator.pay(sessionId);
    const [completed] = shop.emulator.held();
    await shop.emulator.release([]);
    await Promise.all(Array.from({ length: 10 }, () => shop.emulator.deliver(completed as never)));
    await eventually(async () => (await saleCount(sessionId)) === 1, 15_000, 'the sale');
    await smtp.waitFor(smtp.to(buyer.email));
    await settled(shop.runtime.deps, 'the ten deliveries');
    expect(await saleCount(sessionId)).toBe(1);
    expect(smtp.messages.filter(smtp.to(buyer.email))).toHaveLength(1);
    const inbox = await shop.runtime.deps.orm.em
      .fork()
      .execute('select count(*)::int as n from stripe_events where id = ?', [completed?.id]);
    expect(inbox[0]?.n).toBe(1);
  });

  it('a konbini payment becomes a sale only when it succeeds; a failed one never does', async () => {
    const paidBuyer = await member();
    const paid = await startPurchase(paidBuyer.client);
    shop.emulator.pay(paid.sessionId, 'konbini');
    await eventually(async () => (await checkoutState(paid.sessionId)) === 'awaiting_payment', 10_000, 'awaiting payment');
    expect(await saleCount(paid.sessionId)).toBe(0);
    shop.emulator.settleKonbini(paid.sessionId, true);
    await eventually(async () => (await saleCount(paid.sessionId)) === 1, 10_000, 'the konbini sale');

    const failedBuyer = await member();
    const failed = await startPurchase(failedBuyer.client);
    shop.emulator.pay(failed.sessionId, 'konbini');
    const event = shop.emulator.settleKonbini(failed.sessionId, false);
    await eventually(async () => inboxDone(event.id), 10_000, 'the failed event');
    expect(await checkoutState(failed.sessionId)).toBe('payment_failed');
    expect(await saleCount(failed.sessionId)).toBe(0);
  });

  it('an expired session is marked so', async () => {
    const buyer = await member();
    const { sessionId } = await startPurchase(buyer.client);
    shop.emulator.expire(sessionId);
    await eventually(async () => (await checkoutState(sessionId)) === 'expired', 10_000, 'expired');
  });

  it('a refund marks the sale refunded', async () => {
    const buyer = await member();
    const { paymentIntent } = await buyThroughStripe(shop, buyer.client, licenseId);
    shop.emulator.refund(paymentIntent);
    const sales = await eventually(
      async () => {
        const list = await salesOf(buyer.client, buyer.id);
        return list[0]?.refunded_at ? list : null;
      },
      10_000,
      'the refund',
    );
    expect(sales[0]?.refunded_at).not.toBeNull();
  });

  it.each([
    ['refund before completed', (ids: Record<string, string>) => [ids.refunded, ids.completed]],
    ['completed twice around the refund', (ids: Record<string, string>) => [ids.completed, ids.refunded, ids.completed]],
  ])('card events in any order: %s', async (_name, order) => {
    const buyer = await member();
    const { sessionId } = await startPurchase(buyer.client);
    shop.emulator.hold();
    shop.emulator.pay(sessionId);
    shop.emulator.refund(String(shop.emulator.sessions.get(sessionId)?.payment_intent));
    const held = shop.emulator.held();
    const ids = Object.fromEntries(held.map((e) => [e.type.split('.').pop() as string, e.id]));
    const sequence = order(ids).map((id) => held.find((e) => e.id === id));
    await shop.emulator.release([]);
    for (const event of sequence) await shop.emulator.deliver(event as never);
    const sales = await eventually(
      async () => {
        const list = await salesOf(buyer.client, buyer.id);
        return list[0]?.refunded_at ? list : null;
      },
      20_000,
      'a refunded sale',
    );
    expect(sales).toHaveLength(1);
  });

  it.each([
    ['async_payment_succeeded, completed, expired', ['async_payment_succeeded', 'completed', 'expired']],
    ['expired, completed, async_payment_succeeded', ['expired', 'completed', 'async_payment_succeeded']],
    ['completed, async_payment_succeeded, expired', ['completed', 'async_payment_succeeded', 'expired']],
  ])('konbini events in any order: %s', async (_name, order) => {
    const buyer = await member();
    const { sessionId } = await startPurchase(buyer.client);
    shop.emulator.hold();
    shop.emulator.pay(sessionId, 'konbini');
    shop.emulator.settleKonbini(sessionId, true);
    // An expired event for the same session (Stripe would not send one after payment; we must not regress).
    const session = shop.emulator.sessions.get(sessionId);
    const expired = {
      ...(shop.emulator.held()[0] as object),
      id: `evt_test_expired_${seq}`,
      type: 'checkout.session.expired',
      object: { ...session, status: 'expired', payment_status: 'unpaid' },
    };
    const held = [...shop.emulator.held(), expired] as { id: string; type: string }[];
    await shop.emulator.release([]);
    for (const type of order) await shop.emulator.deliver(held.find((e) => e.type.endsWith(type)) as never);
    await eventually(async () => (await saleCount(sessionId)) === 1, 15_000, 'one sale');
    await settled(shop.runtime.deps, 'the events in every order');
    expect(await saleCount(sessionId)).toBe(1);
    expect(await checkoutState(sessionId)).toBe('complete');
  });

  it('flags a session whose amount does not match ours, and makes no sale', async () => {
    const buyer = await member();
    const { sessionId } = await startPurchase(buyer.client);
    shop.emulator.patchSession(sessionId, { amount_total: 50 });
    const event = shop.emulator.pay(sessionId);
    await eventually(async () => inboxDone(event.id), 10_000, 'the event');
    expect(await checkoutState(sessionId)).toBe('flagged');
    expect(await saleCount(sessionId)).toBe(0);
  });
});

describe('webhook timestamps from the future', () => {
  it('refuses a signature dated more than 5 minutes ahead (400), accepts one within the tolerance', async () => {
    const payload = JSON.stringify({
      id: 'evt_test_future',
      object: 'event',
      type: 'ping.test',
      created: 1,
      data: { object: {} },
    });
    const post = (signature: string) =>
      shop.app.request('/api/stripe/webhook', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        body: payload,
      });
    const now = Math.floor(Date.now() / 1000);
    for (const ahead of [301 + 5, 3600, 86_400 * 365]) {
      const res = await post(
        Stripe.webhooks.generateTestHeaderString({ payload, secret: TEST_WEBHOOK_SECRET, timestamp: now + ahead }),
      );
      expect(res.status, String(ahead)).toBe(400);
      expect((await res.json()).message).toBe('Webhook のタイムスタンプが未来の時刻です。');
    }
    const stored = await shop.runtime.deps.orm.em
      .fork()
      .execute("select count(*)::int as n from stripe_events where id = 'evt_test_future'");
    expect(stored[0]?.n).toBe(0);
    const near = Stripe.webhooks.generateTestHeaderString({ payload, secret: TEST_WEBHOOK_SECRET, timestamp: now + 240 });
    expect((await post(near)).status).toBe(200);
  });
});

describe('webhook headers and bodies made to confuse the checks', () => {
  const post = (body: string, signature: string) =>
    shop.app.request('/api/stripe/webhook', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body,
    });
  const stored = async (id: string) =>
    (await shop.runtime.deps.orm.em.fork().execute('select count(*)::int as n from stripe_events where id = ?', [id]))[0]?.n;

  it('refuses a Stripe-Signature with a second t= (a year ahead behind a valid one) with 400', async () => {
    const payload = JSON.stringify({
      id: 'evt_test_two_t',
      object: 'event',
      type: 'ping.test',
      created: 1,
      data: { object: {} },
    });
    const now = Math.floor(Date.now() / 1000);
    const valid = Stripe.webhooks.generateTestHeaderString({ payload, secret: TEST_WEBHOOK_SECRET, timestamp: now });
    const v1 = valid.split(',').find((part) => part.startsWith('v1='));
    // Stripe's library verifies the last t=; the future check once read the first.
    const ahead = now + 86_400 * 365;
    const signedAhead = Stripe.webhooks.generateTestHeaderString({ payload, secret: TEST_WEBHOOK_SECRET, timestamp: ahead });
    const v1Ahead = signedAhead.split(',').find((part) => part.startsWith('v1='));
    for (const signature of [`t=${now},t=${ahead},${v1Ahead}`, `t=${now},t=${ahead},${v1}`, `${valid}, t=${now}`]) {
      const res = await post(payload, signature);
      expect(res.status, signature).toBe(400);
      expect((await res.json()).message).toBe('Webhook の署名を確認できませんでした。');
    }
    expect(await stored('evt_test_two_t')).toBe(0);
    expect((await post(payload, valid)).status).toBe(200);
    expect(await stored('evt_test_two_t')).toBe(1);
  });

  it('refuses a correctly signed body nested 50,000 deep with 400 (never 500); 32 levels are still an event', async () => {
    const nested = (depth: number, id: string) =>
      `{"id":"${id}","object":"event","type":"ping.test","created":1,"data":{"object":{"x":${'['.repeat(depth)}"[{\\"}"${']'.repeat(depth)}}}}`;
    const deep = nested(50_000, 'evt_test_deep');
    const res = await post(deep, Stripe.webhooks.generateTestHeaderString({ payload: deep, secret: TEST_WEBHOOK_SECRET }));
    expect(res.status).toBe(400);
    expect((await res.json()).message).toBe('JSON の入れ子が深すぎます。');
    expect(await stored('evt_test_deep')).toBe(0);
    // 3 levels of the event and 29 of the array: 32 in all, the most a body may nest.
    const edge = nested(29, 'evt_test_edge');
    const ok = await post(edge, Stripe.webhooks.generateTestHeaderString({ payload: edge, secret: TEST_WEBHOOK_SECRET }));
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect(await stored('evt_test_edge')).toBe(1);
  });
});

describe('a licence hidden while members are on its payment page', () => {
  it('expires its open Checkout Sessions at Stripe; a payment that still arrives is flagged, never a sale', async () => {
    const orm = shop.runtime.deps.orm;
    const created = await createLicense(
      orm,
      shop.runtime.deps.files,
      { id: 'test', email: 'test' },
      { name: '非公開になる講習', description: '', price: 3000 },
      [],
    );
    const a = await member();
    const b = await member();
    const open = await startPurchase(a.client, { licenseId: created.id, distribution: true });
    const late = await startPurchase(b.client, { licenseId: created.id, distribution: true });
    // b's session as if created in the same instant as the hiding: not yet known to the handler.
    await orm.em
      .fork()
      .execute('update checkout_sessions set stripe_session_id = null where stripe_session_id = ?', [late.sessionId]);

    const admin = new TestClient(shop.app, '10.20.9.1');
    expect((await admin.login('admin@example.jp', 'admin-pass-123')).status).toBe(200);
    const current = (await (await admin.get(`/api/licenses/${created.id}`)).json()).license;
    const form = new FormData();
    for (const [k, v] of Object.entries({
      name: current.name,
      description: '',
      price: '3000',
      published: 'false',
      updated_at: current.updated_at,
    }))
      form.append(k, v);
    const hide = await admin.request('POST', `/api/licenses/${created.id}`, { body: form });
    expect(hide.status, await hide.clone().text()).toBe(200);

    await eventually(async () => shop.emulator.sessions.get(open.sessionId)?.status === 'expired', 15_000, 'expired at Stripe');
    await eventually(async () => (await checkoutState(open.sessionId)) === 'expired', 10_000, 'expired here');
    expect(shop.emulator.sessions.get(late.sessionId)?.status).toBe('open');

    await orm.em
      .fork()
      .execute(
        'update checkout_sessions set stripe_session_id = ? where user_id = ? and license_id = ? and stripe_session_id is null',
        [late.sessionId, b.id, created.id],
      );
    const event = shop.emulator.pay(late.sessionId);
    await eventually(async () => inboxDone(event.id), 10_000, 'the late payment');
    expect(await checkoutState(late.sessionId)).toBe('flagged');
    expect(await saleCount(late.sessionId)).toBe(0);
    const inbox = await (await admin.get(`/api/payments/events?session=${late.sessionId}`)).json();
    expect(JSON.stringify(inbox)).toContain('非公開のライセンスへの支払い');
  });
});

describe('webhook signature', () => {
  const payload = JSON.stringify({
    id: 'evt_test_forged',
    object: 'event',
    type: 'checkout.session.completed',
    created: 1,
    data: { object: {} },
  });
  const post = (body: string, signature: string) =>
    shop.app.request('/api/stripe/webhook', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body,
    });
  const stored = async () =>
    (
      await shop.runtime.deps.orm.em.fork().execute("select count(*)::int as n from stripe_events where id = 'evt_test_forged'")
    )[0]?.n;

  it('refuses a bad signature, a stale timestamp and a re-serialised body, writing nothing', async () => {
    expect((await post(payload, 't=1,v1=deadbeef')).status).toBe(400);
    expect((await post(payload, '')).status).toBe(400);
    const wrongSecret = Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_wrong' });
    expect((await post(payload, wrongSecret)).status).toBe(400);
    const stale = Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: TEST_WEBHOOK_SECRET,
      timestamp: Math.floor(Date.now() / 1000) - 600,
    });
    expect((await post(payload, stale)).status).toBe(400);
    const good = Stripe.webhooks.generateTestHeaderString({ payload, secret: TEST_WEBHOOK_SECRET });
    const reserialised = JSON.stringify(JSON.parse(payload), null, 2);
    const res = await post(reserialised, good);
    expect(res.status).toBe(400);
    expect((await res.json()).message).toBe('Webhook の署名を確認できませんでした。');
    expect(await stored()).toBe(0);
    // It needs no CSRF token, and a genuine one is accepted.
    expect((await post(payload, good)).status).toBe(200);
    expect(await stored()).toBe(1);
  });

  it('answers 503 while PostgreSQL is unreachable, and stores the event when Stripe retries', async () => {
    const buyer = await member();
    const { sessionId } = await startPurchase(buyer.client);
    shop.emulator.hold();
    const event = shop.emulator.pay(sessionId);
    await shop.emulator.release([]);
    const admin = new (await import('pg')).Client({
      connectionString: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    });
    await admin.connect();
    try {
      await admin.query(`alter database ${shop.db.name} allow_connections false`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [shop.db.name]);
      const body = JSON.stringify({
        id: event.id,
        object: 'event',
        type: event.type,
        created: event.created,
        data: { object: event.object },
      });
      const signature = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: TEST_WEBHOOK_SECRET });
      const res = await post(body, signature);
      expect(res.status).toBe(503);
      expect((await res.json()).message).toBe('ただいまサービスを利用できません。しばらくしてからもう一度お試しください。');
    } finally {
      await admin.query(`alter database ${shop.db.name} allow_connections true`);
      await admin.end();
    }
    await shop.emulator.deliver(event as never);
    await eventually(async () => (await saleCount(sessionId)) === 1, 20_000, 'the sale after redelivery');
  });
});

describe('GET /api/sales/user/{id}', () => {
  it("is the member's own (administrators may read any)", async () => {
    const a = await member();
    const b = await member();
    expect((await a.client.get(`/api/sales/user/${b.id}`)).status).toBe(403);
    expect((await a.client.get(`/api/sales/user/${a.id}`)).status).toBe(200);
    const admin = new TestClient(shop.app, '10.20.9.8');
    await admin.login('admin@example.jp', 'admin-pass-123');
    expect((await admin.get(`/api/sales/user/${a.id}`)).status).toBe(200);
  });
});

describe('a licence someone started to buy', () => {
  it('can no longer be deleted, only hidden', async () => {
    const { client } = await member();
    await startPurchase(client);
    const admin = new TestClient(shop.app, '10.21.0.1');
    await admin.login('admin@example.jp', 'admin-pass-123');
    const refused = await admin.request('DELETE', `/api/licenses/${licenseId}`);
    expect(refused.status).toBe(409);
    expect((await admin.get(`/api/licenses/${licenseId}`)).status).toBe(200);
  });
});
