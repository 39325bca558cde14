import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { buyThroughStripe, chargeRefundedHandled, type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';
import { eventually } from '../support/wait.ts';

// 「この支払いを返金」: a payment kept without a sale (paid twice for a licence held) refunded from the
// shop through the real SDK and the emulator; the reconciliation then no longer reports it, and the
// flagged gauge and admin menu count it as resolved (docs/decisions/0015).

let smtp: TestSmtp;
let shop: ShopWithStripe;
let admin: TestClient;
let viewer: TestClient;
let operator: TestClient;
let licenseId: number;
let seq = 0;

beforeAll(async () => {
  smtp = await startSmtp();
  shop = await startShopWithStripe({ smtpUrl: smtp.url });
  await createOrPromoteAdmin(shop.runtime.deps.orm, { email: 'flag-refund-admin@example.jp', password: 'admin-pass-123' });
  admin = new TestClient(shop.app, '10.71.0.1');
  expect((await admin.login('flag-refund-admin@example.jp', 'admin-pass-123')).status).toBe(200);
  const res = await admin.post('/api/licenses/create', { name: '二重払い返金講習', description: '', price: 11000 });
  expect(res.status, await res.clone().text()).toBe(201);
  licenseId = (await res.json()).license.id;
  [viewer, operator] = [await staff('viewer'), await staff('operator')];
}, 60_000);
// A test stopped midway must not leave Stripe failing, or holding its events, for the next.
afterEach(async () => {
  shop?.emulator.fail('refunds', null);
  await shop?.emulator.release();
});
afterAll(async () => {
  await shop?.stop();
  await smtp?.close();
});

async function staff(role: 'viewer' | 'operator') {
  const { id, email, password } = await aMember(shop.runtime.deps.orm);
  expect((await admin.put(`/api/users/${id}/role`, { role })).status).toBe(200);
  const client = new TestClient(shop.app, `10.71.1.${++seq}`);
  expect((await client.login(email, password)).status).toBe(200);
  return client;
}

async function member() {
  const { id, email, password } = await aMember(shop.runtime.deps.orm, { lastName: '重複', firstName: `花子${++seq}` });
  const client = new TestClient(shop.app, `10.71.2.${seq}`);
  expect((await client.login(email, password)).status).toBe(200);
  return { id, email, client };
}

const query = <T>(text: string, params: unknown[]) => shop.runtime.deps.orm.em.fork().execute<T[]>(text, params);

/** Waits for a paid session to be kept without a sale (flagged): its PaymentIntent and why. */
async function keptWithoutSale(sessionId: string) {
  const row = await eventually(
    async () =>
      (
        await query<{ flag_reason: string }>(
          "select flag_reason from checkout_sessions where stripe_session_id = ? and state = 'flagged'",
          [sessionId],
        )
      )[0],
    15_000,
    'the flag',
  );
  return { paymentIntent: String(shop.emulator.sessions.get(sessionId)?.payment_intent), flagReason: row.flag_reason };
}

/**
 * A member pays a licence they already hold, from a tab opened before their purchase (the second
 * session belongs to them, as a checkout started before this shop expired older sessions): flagged.
 */
async function paidTwice() {
  const buyer = await member();
  await buyThroughStripe(shop, buyer.client, licenseId);
  const other = await member();
  const started = await other.client.post('/api/licenses/stripe', { licenseId, distribution: true });
  expect(started.status, await started.clone().text()).toBe(200);
  const sessionId = new URL((await started.json()).url).pathname.split('/').pop() as string;
  await query('update checkout_sessions set user_id = ? where stripe_session_id = ?', [buyer.id, sessionId]);
  shop.emulator.pay(sessionId);
  const { paymentIntent } = await keptWithoutSale(sessionId);
  return { buyer, sessionId, paymentIntent };
}

interface Finding {
  id: string;
  stripe_session_id: string | null;
  acknowledged_at: string | null;
  acknowledgement_note: string | null;
  refund: { state: string; amount: number } | null;
}
async function reconcileNow() {
  const res = await admin.post('/api/payments/reconciliations', { days: 1 });
  expect(res.status, await res.clone().text()).toBe(202);
  const id = (await res.json()).reconciliation.id as string;
  return eventually(
    async () => {
      const body = await (await admin.get(`/api/payments/reconciliations/${id}`)).json();
      return body.reconciliation.state === 'done' ? { id, findings: body.findings as Finding[] } : null;
    },
    20_000,
    'the reconciliation run',
  );
}
/** The refund offered on the payment's inbox row (its completed event), and on none of its other events. */
const inboxRefunds = async (sessionId: string) =>
  ((await (await admin.get(`/api/payments/events?session=${sessionId}`)).json()).events as { refund: { state: string } | null }[])
    .map((e) => e.refund?.state ?? null)
    .filter(Boolean);
const flaggedOpen = async () => (await (await admin.get('/api/operations')).json()).operations.payments_flagged.open as number;
const refundsOf = (paymentIntent: string) =>
  [...shop.emulator.refunds.values()].filter((r) => r.payment_intent === paymentIntent);
const refund = (client: TestClient, sessionId: string, reason = '購入済みのライセンスへの重複した支払いのため') =>
  client.post(`/api/payments/sessions/${sessionId}/refund`, { reason });

/** Stripe refusing a refund (a 4xx it remembers for the key) and failing on its side (a 500 it remembers too). */
const REFUSED = {
  status: 400,
  type: 'invalid_request_error',
  code: 'charge_disputed',
  message: 'Charge ch_test has been charged back; cannot issue a refund.',
};
const OUTAGE = { status: 500, type: 'api_error', message: 'An unknown error occurred.' };

const auditCount = async (action: string, sessionId: string) =>
  (
    await query<{ n: number }>('select count(*)::int as n from audit_logs where action = ? and target_id = ?', [
      action,
      sessionId,
    ])
  )[0]?.n;

/**
 * Once its charge.refunded is handled too (the other way a refund is recorded), the member has been
 * told exactly once: one FlaggedPaymentRefunded, one delivery, one 返金のお知らせ received.
 */
async function toldOnce(email: string, sessionId: string, paymentIntent: string) {
  await chargeRefundedHandled(shop, paymentIntent);
  const mail = await smtp.waitFor((m) => smtp.to(email)(m) && (m.subject ?? '').includes('返金のお知らせ'));
  const [events] = await query<{ n: number }>(
    "select count(*)::int as n from outbox_events where name = 'FlaggedPaymentRefunded' and payload->>'checkoutId' = (select id::text from checkout_sessions where stripe_session_id = ?)",
    [sessionId],
  );
  expect(events?.n).toBe(1);
  const [deliveries] = await query<{ n: number }>(
    "select count(*)::int as n from mail_deliveries where recipient = ? and template = 'flagged-refund-notice'",
    [email],
  );
  expect(deliveries?.n).toBe(1);
  expect(smtp.messages.filter((m) => smtp.to(email)(m) && (m.subject ?? '').includes('返金のお知らせ'))).toHaveLength(1);
  return mail;
}

describe('refunding a flagged payment from the shop', () => {
  it('refunds it once at Stripe, tells the member, and the next reconciliation finds nothing', async () => {
    const { buyer, sessionId, paymentIntent } = await paidTwice();
    const before = await reconcileNow();
    const finding = before.findings.find((f) => f.stripe_session_id === sessionId);
    expect(finding?.refund).toMatchObject({ state: 'refundable', amount: 11000, currency: 'jpy' });
    expect(await flaggedOpen()).toBe(1);
    expect(await inboxRefunds(sessionId)).toEqual(['refundable']);

    // A viewer may not refund; bad input is a 422 in Japanese.
    const refused = await refund(viewer, sessionId);
    expect(refused.status).toBe(403);
    expect((await refused.json()).code).toBe('forbidden_for_role');
    const empty = await refund(admin, sessionId, '   ');
    expect(empty.status).toBe(422);
    expect(JSON.stringify(await empty.json())).toContain('返金の理由を入力してください。');
    expect(refundsOf(paymentIntent)).toHaveLength(0);

    // A double click: two requests at once refund once.
    const answers = await Promise.all([refund(operator, sessionId), refund(operator, sessionId)]);
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses[0]).toBe(200);
    expect([200, 409]).toContain(statuses[1]);
    const refunds = refundsOf(paymentIntent);
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ amount: 11000, currency: 'jpy', reason: 'duplicate', status: 'succeeded' });
    const charge = await fetch(`${shop.stripeUrl}/_emulator/events`).then((r) => r.json());
    expect(
      charge.events.filter(
        (e: { type: string; object: { payment_intent: string } }) =>
          e.type === 'charge.refunded' && e.object.payment_intent === paymentIntent,
      ),
    ).toHaveLength(1);

    // Once refunded: 409, and the difference is resolved for the gauge and the admin menu.
    const again = await refund(admin, sessionId);
    expect(again.status).toBe(409);
    expect((await again.json()).message).toBe('この支払いは返金済みです。');
    const resolved = (await (await admin.get(`/api/payments/reconciliations/${before.id}`)).json()).findings.find(
      (f: Finding) => f.stripe_session_id === sessionId,
    ) as Finding;
    expect(resolved.refund).toMatchObject({ state: 'refunded', amount: 11000 });
    expect(resolved.acknowledgement_note).toBe('返金済み（¥11,000、税込）');
    expect(await flaggedOpen()).toBe(0);
    expect((await (await admin.get('/api/payments/reconciliations?unacknowledged=true')).json()).total).toBe(0);
    expect(await inboxRefunds(sessionId)).toEqual(['refunded']);

    const mail = await smtp.waitFor((m) => smtp.to(buyer.email)(m) && (m.text ?? '').includes('重複してお支払い'));
    expect(mail.subject).toContain('返金のお知らせ');
    expect(mail.text).toContain('返金額：¥11,000（税込）');
    expect(mail.headers.has('list-unsubscribe')).toBe(false);
    const audits = await query<{ n: number }>(
      "select count(*)::int as n from audit_logs where action = 'payment.refund' and target_id = ?",
      [sessionId],
    );
    expect(audits[0]?.n).toBe(1);

    // The next nightly (here: manual) run reports nothing for it; the gauge stays 0.
    const after = await reconcileNow();
    expect(after.findings).toEqual([]);
    expect(await flaggedOpen()).toBe(0);
    // A replay of its payment event never makes it a sale.
    const [event] = await query<{ id: string }>(
      "select id from stripe_events where stripe_session_id = ? and type = 'checkout.session.completed'",
      [sessionId],
    );
    expect((await admin.post(`/api/payments/events/${event?.id}/replay`)).status).toBe(200);
    expect(
      (await query<{ n: number }>('select count(*)::int as n from sales where stripe_session_id = ?', [sessionId]))[0]?.n,
    ).toBe(0);
  });

  it('a refund made in Stripe’s dashboard resolves it too (charge.refunded)', async () => {
    const { buyer, sessionId, paymentIntent } = await paidTwice();
    await reconcileNow();
    expect(await flaggedOpen()).toBe(1);
    expect((await fetch(`${shop.stripeUrl}/_emulator/payment_intents/${paymentIntent}/refund`, { method: 'POST' })).status).toBe(
      200,
    );
    await eventually(async () => (await flaggedOpen()) === 0, 15_000, 'the difference resolved');
    await smtp.waitFor((m) => smtp.to(buyer.email)(m) && (m.text ?? '').includes('重複してお支払い'));
    expect((await refund(admin, sessionId)).status).toBe(409);
    expect((await reconcileNow()).findings).toEqual([]);
  });

  it('a dashboard refund whose charge.refunded never came is recorded by the next reconciliation, the member told once', async () => {
    const { buyer, sessionId, paymentIntent } = await paidTwice();
    await reconcileNow();
    expect(await flaggedOpen()).toBe(1);
    shop.emulator.hold();
    expect((await fetch(`${shop.stripeUrl}/_emulator/payment_intents/${paymentIntent}/refund`, { method: 'POST' })).status).toBe(
      200,
    );
    await shop.emulator.release([]);
    expect((await reconcileNow()).findings).toEqual([]);
    expect(await flaggedOpen()).toBe(0);
    const [row] = await query<{ refunded_at: string | null; refunded_amount: number }>(
      'select refunded_at, refunded_amount from checkout_sessions where stripe_session_id = ?',
      [sessionId],
    );
    expect(row).toMatchObject({ refunded_at: expect.anything(), refunded_amount: 11000 });
    await smtp.waitFor((m) => smtp.to(buyer.email)(m) && (m.text ?? '').includes('重複してお支払い'));
    // Another run finds it refunded again: recorded once, one 返金のお知らせ.
    expect((await reconcileNow()).findings).toEqual([]);
    const [told] = await query<{ n: number }>(
      "select count(*)::int as n from outbox_events where name = 'FlaggedPaymentRefunded' and payload->>'checkoutId' = (select id::text from checkout_sessions where stripe_session_id = ?)",
      [sessionId],
    );
    expect(told?.n).toBe(1);
  });

  it('Stripe refusing it (409) or failing (503) withdraws the request; pressed again, it refunds once with a new key', async () => {
    const { buyer, sessionId, paymentIntent } = await paidTwice();
    const requested = async () =>
      (
        await query<{ refund_requested_at: string | null }>(
          'select refund_requested_at from checkout_sessions where stripe_session_id = ?',
          [sessionId],
        )
      )[0]?.refund_requested_at;

    shop.emulator.fail('refunds', REFUSED);
    const refused = await refund(admin, sessionId);
    expect(refused.status).toBe(409);
    expect((await refused.json()).code).toBe('stripe_refused');
    expect(await requested()).toBeNull();
    expect(await auditCount('payment.refund.failed', sessionId)).toBe(1);

    shop.emulator.fail('refunds', OUTAGE);
    const unavailable = await refund(admin, sessionId);
    expect(unavailable.status).toBe(503);
    expect((await unavailable.json()).message).toBe('決済サービスに接続できませんでした。時間をおいて再度お試しください。');
    expect(await requested()).toBeNull();
    expect(await auditCount('payment.refund.failed', sessionId)).toBe(2);
    expect(refundsOf(paymentIntent)).toHaveLength(0);

    // The cause gone, the emulator still replays each withdrawn key's error as Stripe does: only a new key refunds.
    shop.emulator.fail('refunds', null);
    const done = await refund(admin, sessionId);
    expect(done.status, await done.clone().text()).toBe(200);
    expect(refundsOf(paymentIntent)).toHaveLength(1);
    expect(refundsOf(paymentIntent)[0]).toMatchObject({ amount: 11000, status: 'succeeded' });
    expect(await auditCount('payment.refund', sessionId)).toBe(3);
    const mail = await toldOnce(buyer.email, sessionId, paymentIntent);
    expect(mail.text).toContain('重複してお支払い');
    expect((await refund(admin, sessionId)).status).toBe(409);
    expect(refundsOf(paymentIntent)).toHaveLength(1);
  });

  it('a payment for a licence full by then is refunded, the member told once why (定員)', async () => {
    const created = await admin.post('/api/licenses/create', { name: '満席返金講習', description: '', price: 5500, capacity: 1 });
    expect(created.status, await created.clone().text()).toBe(201);
    const fullId = (await created.json()).license.id as number;
    const [late, prompt] = [await member(), await member()];
    const started = await late.client.post('/api/licenses/stripe', { licenseId: fullId, distribution: true });
    expect(started.status, await started.clone().text()).toBe(200);
    const sessionId = new URL((await started.json()).url).pathname.split('/').pop() as string;
    // Its hold ran out while Stripe still took the payment; the seat went to another member.
    await query("update checkout_sessions set hold_until = now() - interval '1 minute' where stripe_session_id = ?", [sessionId]);
    await buyThroughStripe(shop, prompt.client, fullId);
    shop.emulator.pay(sessionId);
    const { paymentIntent } = await keptWithoutSale(sessionId);

    const res = await refund(admin, sessionId, '満席のため');
    expect(res.status, await res.clone().text()).toBe(200);
    expect(refundsOf(paymentIntent)).toHaveLength(1);
    expect(refundsOf(paymentIntent)[0]).toMatchObject({ amount: 5500, status: 'succeeded' });
    // Not a duplicate: Stripe is given no reason.
    expect(refundsOf(paymentIntent)[0]?.reason).toBeNull();
    const mail = await toldOnce(late.email, sessionId, paymentIntent);
    expect(mail.subject).toContain('返金のお知らせ');
    expect(mail.text).toContain(
      'お支払いの時点でライセンスが定員に達していたため、ご購入をお受けできませんでした。お支払いいただいた代金を全額返金しました。',
    );
    expect(mail.text).toContain('ライセンス：満席返金講習');
    expect(mail.text).toContain('返金額：¥5,500（税込）');
    expect(mail.text).not.toContain('重複してお支払い');
    expect(smtp.messages.filter((m) => smtp.to(prompt.email)(m) && (m.subject ?? '').includes('返金'))).toHaveLength(0);
  });

  it('a payment for a licence hidden meanwhile is refunded, the member told once why (販売終了)', async () => {
    const created = await admin.post('/api/licenses/create', { name: '非公開返金講習', description: '', price: 7700 });
    expect(created.status, await created.clone().text()).toBe(201);
    const hiddenId = (await created.json()).license.id as number;
    const buyer = await member();
    const started = await buyer.client.post('/api/licenses/stripe', { licenseId: hiddenId, distribution: true });
    expect(started.status, await started.clone().text()).toBe(200);
    const sessionId = new URL((await started.json()).url).pathname.split('/').pop() as string;
    // Paid at Stripe, its webhook still on the way, when an administrator hides the licence.
    shop.emulator.hold();
    shop.emulator.pay(sessionId);
    expect((await admin.put(`/api/licenses/${hiddenId}/published`, { published: false })).status).toBe(200);
    await shop.emulator.release();
    const { paymentIntent, flagReason } = await keptWithoutSale(sessionId);
    expect(flagReason).toMatch(/^非公開のライセンスへの支払い/);

    const res = await refund(admin, sessionId, '販売終了のため');
    expect(res.status, await res.clone().text()).toBe(200);
    expect(refundsOf(paymentIntent)).toHaveLength(1);
    expect(refundsOf(paymentIntent)[0]).toMatchObject({ amount: 7700, status: 'succeeded', reason: null });
    const mail = await toldOnce(buyer.email, sessionId, paymentIntent);
    expect(mail.text).toContain(
      'お支払いの時点でライセンスの販売が終了していたため、ご購入をお受けできませんでした。お支払いいただいた代金を全額返金しました。',
    );
    expect(mail.text).toContain('ライセンス：非公開返金講習');
    expect(mail.text).toContain('返金額：¥7,700（税込）');
  });

  it('refuses a payment that is a sale (409) and an unknown session (404)', async () => {
    const buyer = await member();
    const { sessionId, paymentIntent } = await buyThroughStripe(shop, buyer.client, licenseId);
    const res = await refund(admin, sessionId);
    expect(res.status).toBe(409);
    expect((await res.json()).message).toContain('売上になっています');
    expect(refundsOf(paymentIntent)).toHaveLength(0);
    expect((await refund(admin, 'cs_test_nothing_here')).status).toBe(404);
    expect((await refund(admin, 'not-a-session')).status).toBe(404);
  });
});
