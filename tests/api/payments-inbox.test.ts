import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonb, db as kyselyOf, now } from '../../src/db/kysely.ts';
import { eventJson } from '../../src/dev/stripe-emulator/emulator.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { settled } from '../support/settle.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { buyThroughStripe, type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';
import { eventually } from '../support/wait.ts';

let shop: ShopWithStripe;
let smtp: TestSmtp;
let admin: TestClient;
let licenseId: number;
let seq = 0;

beforeAll(async () => {
  smtp = await startSmtp();
  shop = await startShopWithStripe({ smtpUrl: smtp.url });
  const license = await createLicense(
    shop.runtime.deps.orm,
    shop.runtime.deps.files,
    { id: 'test', email: 'test' },
    { name: 'BLS 講習ライセンス', description: '', price: 8800 },
    [],
  );
  licenseId = license.id;
  await createOrPromoteAdmin(shop.runtime.deps.orm, { email: 'payments-admin@example.jp', password: 'admin-pass-123' });
  admin = new TestClient(shop.app, '10.40.9.9');
  expect((await admin.login('payments-admin@example.jp', 'admin-pass-123')).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await shop?.stop();
  await smtp?.close();
});

const db = () => shop.runtime.deps.orm.em.fork();

async function member() {
  const { email, password } = await aMember(shop.runtime.deps.orm, {
    lastName: '支払',
    firstName: `花子${++seq}`,
    affiliation: 2,
    affiliationName: '〇〇病院',
  });
  const client = new TestClient(shop.app, `10.40.0.${seq}`);
  expect((await client.login(email, password)).status).toBe(200);
  return { client, email };
}

async function purchase() {
  const buyer = await member();
  const res = await buyer.client.post('/api/licenses/stripe', { licenseId, distribution: true });
  expect(res.status).toBe(200);
  const sessionId = new URL((await res.json()).url).pathname.split('/').pop() as string;
  return { ...buyer, sessionId };
}

const saleCount = async (sessionId: string) =>
  (await db().execute('select count(*)::int as n from sales where stripe_session_id = ?', [sessionId]))[0]?.n as number;

async function paidSale() {
  const buyer = await member();
  return { ...buyer, ...(await buyThroughStripe(shop, buyer.client, licenseId)) };
}

const paymentIntentOf = (sessionId: string) => String(shop.emulator.sessions.get(sessionId)?.payment_intent);

/** Paid at Stripe, the webhook stored in the inbox as failed `attempts` times and never queued again. */
async function plantFailedEvent(sessionId: string, error: string, attempts: number) {
  shop.emulator.hold();
  shop.emulator.pay(sessionId);
  const completed = shop.emulator.held().find((e) => e.type === 'checkout.session.completed');
  await shop.emulator.release([]);
  if (!completed) throw new Error('no completed event');
  await kyselyOf(db())
    .insertInto('stripe_events')
    .values({
      id: completed.id,
      type: completed.type,
      payload: jsonb(eventJson(completed)),
      stripe_session_id: sessionId,
      received_at: now(),
      attempts,
      failed_at: now(),
      last_error: error,
    })
    .execute();
  return completed;
}

interface InboxEvent {
  id: string;
  type: string;
  type_label: string;
  state: string;
  outcome: string | null;
  outcome_label: string | null;
  error: string | null;
  attempts: number;
  stripe_session_id: string | null;
}
const inbox = async (query = '') => {
  const res = await admin.get(`/api/payments/events${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as { events: InboxEvent[]; total: number; page: number; per_page: number };
};

describe('payments inbox', () => {
  it('lists every stored Stripe event with its state and outcome, filtered by type, state, session and JST date', async () => {
    const { sessionId } = await paidSale();
    const all = await eventually(
      async () => {
        const list = await inbox(`?session=${sessionId}`);
        return list.events.some((e) => e.state === 'processed') ? list : null;
      },
      10_000,
      'the processed event',
    );
    expect(all.events[0]).toMatchObject({
      type: 'checkout.session.completed',
      type_label: '決済手続きの完了',
      state: 'processed',
      outcome: 'paid',
      outcome_label: '売上を記録',
      attempts: 1,
      error: null,
      stripe_session_id: sessionId,
    });
    expect((await inbox(`?session=${sessionId}&state=failed`)).total).toBe(0);
    expect((await inbox(`?session=${sessionId}&type=charge.refunded`)).total).toBe(0);
    const today = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Tokyo' }).format(new Date());
    expect((await inbox(`?session=${sessionId}&from=${today}&to=${today}`)).total).toBe(1);
    expect((await inbox(`?session=${sessionId}&from=2099-01-01`)).total).toBe(0);
    const paged = await inbox('?per_page=1&page=1');
    expect(paged).toMatchObject({ page: 1, per_page: 1 });
    expect(paged.events).toHaveLength(1);

    const detail = await (await admin.get(`/api/payments/events/${all.events[0]?.id}`)).json();
    expect(detail.event.payload.data.object.id).toBe(sessionId);
  });

  it('refuses members (403), strangers (401) and bad filters (422 in Japanese); unknown ids are 404', async () => {
    const buyer = await member();
    expect((await buyer.client.get('/api/payments/events')).status).toBe(403);
    expect((await new TestClient(shop.app).get('/api/payments/events')).status).toBe(401);
    expect((await buyer.client.post('/api/payments/events/evt_x/replay', {})).status).toBe(403);
    expect((await buyer.client.post('/api/payments/reconciliations', {})).status).toBe(403);
    const bad = await admin.get('/api/payments/events?state=broken&from=2024-02-30&per_page=500');
    expect(bad.status).toBe(422);
    const body = await bad.json();
    expect(body.message).toBe('不正な値が入力されました。');
    expect(Object.keys(body.errors).sort()).toEqual(['from', 'per_page', 'state']);
    // A reversed period says why, as the other screens do (not 0 rows in silence).
    const reversed = await admin.get('/api/payments/events?from=2026-11-02&to=2026-11-01');
    expect(reversed.status).toBe(422);
    expect((await reversed.json()).errors).toEqual({ to: ['終了日は開始日と同じか、それより後の日付を指定してください。'] });
    const missing = await admin.post('/api/payments/events/evt_missing/replay', {});
    expect(missing.status).toBe(404);
    expect((await missing.json()).message).toBe('Stripe イベントが見つかりませんでした。');
    expect((await admin.get('/api/payments/events/not-an-event')).status).toBe(404);
    expect((await admin.post('/api/payments/reconciliations', { days: 0 })).status).toBe(422);
  });

  it('a handler failure is written on the event (when, why, attempts) and the event stays replayable', async () => {
    // A payment made outside this shop (no checkout of ours), then refunded: processing it fails.
    const session = await shop.runtime.deps.stripe.checkout.sessions.create({
      mode: 'payment',
      line_items: [{ quantity: 1, price_data: { currency: 'jpy', unit_amount: 500, product_data: { name: '他社' } } }],
      success_url: 'http://127.0.0.1/ok',
      cancel_url: 'http://127.0.0.1/cancel',
    });
    shop.emulator.pay(session.id);
    shop.emulator.refund(paymentIntentOf(session.id));
    const failed = await eventually(
      async () => (await inbox('?state=failed&type=charge.refunded')).events[0],
      15_000,
      'the failed refund event',
    );
    expect(failed.error).toContain('refund for unknown payment');
    expect(failed.attempts).toBeGreaterThanOrEqual(1);
    const replay = await admin.post(`/api/payments/events/${failed.id}/replay`, {});
    expect(replay.status).toBe(200);
    const after = (await replay.json()).event as InboxEvent;
    expect(after.state).toBe('failed');
    expect(after.attempts).toBeGreaterThan(failed.attempts);
    const audit = await db().execute(
      "select count(*)::int as n from audit_logs where action = 'payment.replay' and target_id = ?",
      [failed.id],
    );
    expect(audit[0]?.n).toBe(1);
  });

  it('a planted failed webhook replayed 5 times at once makes one sale and one receipt e-mail', async () => {
    const bought = await purchase();
    const completed = await plantFailedEvent(bought.sessionId, 'Error: connection terminated unexpectedly', 3);
    expect((await inbox(`?session=${bought.sessionId}&state=failed`)).events[0]?.error).toBe(
      'Error: connection terminated unexpectedly',
    );
    const replaying = new Date();
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => admin.post(`/api/payments/events/${completed.id}/replay`, {})),
    );
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    await eventually(async () => (await saleCount(bought.sessionId)) === 1, 15_000, 'the sale');
    await smtp.waitFor(smtp.to(bought.email));
    await settled(shop.runtime.deps, 'the replays', { since: replaying });
    expect(await saleCount(bought.sessionId)).toBe(1);
    expect(smtp.messages.filter(smtp.to(bought.email))).toHaveLength(1);
    const [event] = (await inbox(`?session=${bought.sessionId}`)).events;
    expect(event).toMatchObject({ state: 'processed', outcome: 'paid' });
  });
});

interface Finding {
  kind: string;
  kind_label: string;
  stripe_session_id: string | null;
  sale_id: number | null;
  sale_user_id: string | null;
  event_id: string | null;
  detail: string;
}

async function reconcileNow(days = 1) {
  const res = await admin.post('/api/payments/reconciliations', { days });
  expect(res.status, await res.clone().text()).toBe(202);
  const { reconciliation } = await res.json();
  expect(reconciliation).toMatchObject({ trigger: 'manual', state: 'queued', days, requested_by: 'payments-admin@example.jp' });
  return eventually(
    async () => {
      const detail = await (await admin.get(`/api/payments/reconciliations/${reconciliation.id}`)).json();
      return detail.reconciliation.state === 'done'
        ? (detail as { reconciliation: Record<string, unknown>; findings: Finding[] })
        : null;
    },
    20_000,
    'the reconciliation run',
  );
}

describe('reconciliation', () => {
  it('finds each kind of difference planted at Stripe, and nothing for a clean sale', async () => {
    const clean = await paidSale();

    // Paid at Stripe, the webhook never arrived.
    const lost = await purchase();
    shop.emulator.hold();
    shop.emulator.pay(lost.sessionId);
    await shop.emulator.release([]);

    // Stripe's amount differs from the sale's.
    const changed = await paidSale();
    shop.emulator.patchSession(changed.sessionId, { amount_total: 100 });

    // A sale whose session Stripe says is unpaid.
    const unpaid = await paidSale();
    shop.emulator.patchSession(unpaid.sessionId, { payment_status: 'unpaid' });

    // Refunded at Stripe, the refund event never arrived.
    const refunded = await paidSale();
    shop.emulator.hold();
    shop.emulator.refund(paymentIntentOf(refunded.sessionId));
    await shop.emulator.release([]);

    const { reconciliation, findings } = await reconcileNow();
    const of = (sessionId: string) => findings.filter((f) => f.stripe_session_id === sessionId).map((f) => f.kind);
    expect(of(clean.sessionId)).toEqual([]);
    expect(of(lost.sessionId)).toEqual(['paid_without_sale']);
    expect(of(changed.sessionId)).toEqual(['amount_mismatch']);
    expect(of(unpaid.sessionId)).toEqual(['sale_without_payment']);
    expect(of(refunded.sessionId)).toEqual(['refund_not_recorded']);
    expect(reconciliation.sessions_checked).toBeGreaterThanOrEqual(5);
    expect(reconciliation.findings).toBe(findings.length);

    const lostFinding = findings.find((f) => f.stripe_session_id === lost.sessionId) as Finding;
    expect(lostFinding.kind_label).toBe('支払い済みなのに売上がない');
    expect(lostFinding.detail).toContain('Webhook イベントを受信していません');
    const mismatch = findings.find((f) => f.stripe_session_id === changed.sessionId) as Finding;
    expect(mismatch.detail).toContain('¥100');
    expect(mismatch.detail).toContain('¥8,800');
    // The sale by its order number, never 「売上 #id」.
    expect(mismatch.detail).toMatch(/注文番号 LS-\d{4}-[0-9A-Z]{6}/);
    expect(mismatch.sale_id).toBeGreaterThan(0);
    expect(mismatch.sale_user_id).toBeTruthy();

    const runs = await (await admin.get('/api/payments/reconciliations')).json();
    expect(runs.reconciliations[0]).toMatchObject({ id: reconciliation.id, state: 'done', state_label: '完了' });
    const audit = await db().execute(
      "select count(*)::int as n from audit_logs where action = 'reconciliation.run' and target_id = ?",
      [reconciliation.id],
    );
    expect(audit[0]?.n).toBe(1);
  });

  it('a paid session whose event failed is linked to that event; replaying it makes the sale and the next run is clean', async () => {
    const bought = await purchase();
    const completed = await plantFailedEvent(bought.sessionId, 'Error: timeout', 1);
    const first = await reconcileNow();
    const finding = first.findings.find((f) => f.stripe_session_id === bought.sessionId);
    expect(finding).toMatchObject({ kind: 'paid_without_sale', event_id: completed.id });
    expect(finding?.detail).toContain('再実行できます');

    expect((await admin.post(`/api/payments/events/${completed.id}/replay`, {})).status).toBe(200);
    await eventually(async () => (await saleCount(bought.sessionId)) === 1, 15_000, 'the sale');
    const second = await reconcileNow();
    expect(second.findings.filter((f) => f.stripe_session_id === bought.sessionId)).toEqual([]);
  });

  it('the nightly run is one BullMQ job scheduler at 03:00 JST, and a night delivered twice runs once', async () => {
    const { queues } = shop.runtime.deps;
    const scheduler = await queues.payments.getJobScheduler('nightly-payment-reconciliation');
    expect(scheduler).toMatchObject({ pattern: '0 3 * * *', tz: 'Asia/Tokyo' });
    expect((await queues.payments.getJobSchedulers()).filter((s) => s.key === 'nightly-payment-reconciliation')).toHaveLength(1);

    const night = {
      id: 'nightly-payment-reconciliation',
      name: 'ReconciliationRequested',
      occurredAt: new Date().toISOString(),
      payload: { trigger: 'schedule' },
    };
    const delivered = new Date();
    await Promise.all([
      queues.payments.add('ReconciliationRequested', night),
      queues.payments.add('ReconciliationRequested', night),
    ]);
    const runs = await eventually(
      async () => {
        const rows = await db().execute<{ state: string; slot: string }[]>(
          "select state, slot from reconciliation_runs where trigger = 'schedule'",
        );
        return rows.length === 1 && rows[0]?.state === 'done' ? rows : null;
      },
      20_000,
      'the nightly run',
    );
    expect(runs[0]?.slot).toMatch(/^nightly:\d{4}-\d{2}-\d{2}$/);
    await settled(shop.runtime.deps, 'the second delivery of the night', { since: delivered });
    expect((await db().execute("select count(*)::int as n from reconciliation_runs where trigger = 'schedule'"))[0]?.n).toBe(1);
  });
});
