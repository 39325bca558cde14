import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aMember, anAdmin } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { type ShopWithStripe, startShopWithStripe, TEST_STRIPE_KEY } from '../support/stripe.ts';
import { eventually } from '../support/wait.ts';

// Issue 34 review item 2: one member, two Stripe tabs for one licence. A new checkout expires the
// member's open session at Stripe (the real SDK against the emulator) before its own exists, so only
// one can be paid and seats stay exact; a payment that arrives anyway for a licence already held or
// full is flagged for a refund, never made a sale and never lost (docs/decisions/0047).

let shop: ShopWithStripe;
let stripe: Stripe;
let admin: TestClient;
let seq = 0;

beforeAll(async () => {
  shop = await startShopWithStripe();
  const url = new URL(shop.stripeUrl);
  stripe = new Stripe(TEST_STRIPE_KEY, { host: url.hostname, port: Number(url.port), protocol: 'http' });
  const { email, password } = await anAdmin(shop.runtime.deps.orm);
  admin = new TestClient(shop.app, '10.36.0.1');
  expect((await admin.login(email, password)).status).toBe(200);
}, 60_000);
afterAll(async () => shop?.stop());

async function member() {
  const { id, email, password } = await aMember(shop.runtime.deps.orm, { firstName: `二重${++seq}` });
  const client = new TestClient(shop.app, `10.36.1.${seq}`);
  expect((await client.login(email, password)).status).toBe(200);
  return { id, client };
}
type Member = Awaited<ReturnType<typeof member>>;

async function licence(capacity: number | null) {
  const res = await admin.request('POST', '/api/licenses/create', {
    json: { name: `二重支払い講習 ${++seq}`, description: '', price: 11000, ...(capacity ? { capacity } : {}) },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()).license.id as number;
}

const buy = (buyer: Member, licenseId: number) => buyer.client.post('/api/licenses/stripe', { licenseId, distribution: true });
async function start(buyer: Member, licenseId: number) {
  const res = await buy(buyer, licenseId);
  expect(res.status, await res.clone().text()).toBe(200);
  return new URL((await res.json()).url).pathname.split('/').pop() as string;
}
const query = <T>(text: string, params: unknown[]) => shop.runtime.deps.orm.em.fork().execute<T[]>(text, params);
const checkoutOf = async (sessionId: string) =>
  (
    await query<{ id: string; state: string; flag_reason: string | null }>(
      'select id, state, flag_reason from checkout_sessions where stripe_session_id = ?',
      [sessionId],
    )
  )[0];
const salesOf = async (licenseId: number) =>
  (await query<{ n: number }>('select count(*)::int as n from sales where license_id = ?', [licenseId]))[0]?.n;
/** Pays on the emulator's hosted page, as the member would in that tab. */
const payInTab = (sessionId: string) =>
  fetch(`${shop.stripeUrl}/c/pay/${sessionId}/card`, { method: 'POST', redirect: 'manual' });
const outcomeOf = async (sessionId: string, type: string) =>
  (
    await query<{ outcome: string | null }>('select outcome from stripe_events where stripe_session_id = ? and type = ?', [
      sessionId,
      type,
    ])
  )[0]?.outcome;

describe('a member’s second tab', () => {
  it('expires the first session at Stripe before the second exists: only one can be paid, one seat taken', async () => {
    const licenseId = await licence(1);
    const buyer = await member();
    const first = await start(buyer, licenseId);
    const second = await start(buyer, licenseId);
    expect((await stripe.checkout.sessions.retrieve(first)).status).toBe('expired');
    expect((await stripe.checkout.sessions.retrieve(second)).status).toBe('open');
    expect((await checkoutOf(first))?.state).toBe('expired');
    // The first tab can no longer pay.
    expect((await payInTab(first)).status).toBe(409);
    // The seat is held once: another member finds the licence full.
    const other = await member();
    const refused = await buy(other, licenseId);
    expect(refused.status).toBe(409);
    expect((await refused.json()).code).toBe('sold_out');
    expect((await payInTab(second)).status).toBe(303);
    await eventually(async () => (await salesOf(licenseId)) === 1, 15_000, 'the sale');
    expect((await checkoutOf(second))?.state).toBe('complete');
  });

  it('a first tab paid a moment ago wins: the second start is refused and opens no session', async () => {
    const licenseId = await licence(null);
    const buyer = await member();
    const first = await start(buyer, licenseId);
    // Paid at Stripe; its webhook has not reached the shop yet.
    shop.emulator.hold();
    expect((await payInTab(first)).status).toBe(303);
    const sessionsBefore = shop.emulator.sessions.size;
    const again = await buy(buyer, licenseId);
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'already_purchased' });
    expect(shop.emulator.sessions.size).toBe(sessionsBefore);
    const failed = await query<{ n: number }>(
      "select count(*)::int as n from checkout_sessions where user_id = ? and license_id = ? and state = 'failed'",
      [buyer.id, licenseId],
    );
    expect(failed[0]?.n).toBe(1);
    await shop.emulator.release();
    await eventually(async () => (await salesOf(licenseId)) === 1, 15_000, 'the first tab’s sale');
    expect((await checkoutOf(first))?.state).toBe('complete');
  });

  it('two starts at once (a double click) leave one payable session', async () => {
    const licenseId = await licence(null);
    const buyer = await member();
    const answers = await Promise.all([buy(buyer, licenseId), buy(buyer, licenseId)]);
    const urls: string[] = [];
    for (const res of answers) {
      if (res.status === 200) urls.push((await res.json()).url);
      else expect(res.status).toBe(409);
    }
    expect(urls.length).toBeGreaterThanOrEqual(1);
    const open = await eventually(
      async () => {
        const mine = [...shop.emulator.sessions.values()].filter(
          (s) => (s.metadata as { userId?: string }).userId === buyer.id && s.status === 'open',
        );
        return mine.length === 1 ? mine : null;
      },
      15_000,
      'one open session',
    );
    expect(urls.map((url) => new URL(url).pathname.split('/').pop())).toContain(open[0]?.id);
  });
});

describe('a payment that must not become a sale is flagged, not lost', () => {
  it('a second payment of a licence the member holds (a tab from before this change): flagged for a refund', async () => {
    const licenseId = await licence(null);
    const [buyer, other] = [await member(), await member()];
    const first = await start(buyer, licenseId);
    const stray = await start(other, licenseId);
    // The second tab, opened before a new checkout expired the old one: the same member's session.
    await query('update checkout_sessions set user_id = ? where stripe_session_id = ?', [buyer.id, stray]);
    expect((await payInTab(first)).status).toBe(303);
    await eventually(async () => (await salesOf(licenseId)) === 1, 15_000, 'the first sale');
    expect((await payInTab(stray)).status).toBe(303);
    const flagged = await eventually(
      async () => {
        const row = await checkoutOf(stray);
        return row?.state === 'flagged' ? row : null;
      },
      15_000,
      'the flag',
    );
    expect(flagged.flag_reason).toMatch(/^購入済みのライセンスへの重複した支払い（ライセンス #\d+、ご注文番号 LS-/);
    expect(await salesOf(licenseId)).toBe(1);
    expect(await outcomeOf(stray, 'checkout.session.completed')).toBe('flagged: duplicate payment');
    const inbox = await (await admin.get(`/api/payments/events?session=${stray}`)).json();
    expect(JSON.stringify(inbox)).toContain('購入済みのライセンスへの重複した支払い（売上にしていません。返金してください）');
    // The member sees the payment too, as one to be refunded, not as a purchase.
    const history = await (await buyer.client.get(`/api/sales/user/${buyer.id}`)).json();
    const strayNumber = flagged.flag_reason?.match(/LS-\d{4}-[0-9A-Z]{6}/)?.[0];
    const strayOrder = history.orders.find((o: { order_number: string }) => o.order_number === strayNumber);
    expect(strayOrder).toMatchObject({ state: 'refund_due', sale_id: null });
    expect(strayOrder.state_label).toContain('返金予定');
    const page = await buyer.client.get(`/api/users/${buyer.id}/orders/${strayNumber}`);
    expect((await page.json()).order.state).toBe('refund_due');
    // The reconciliation lists the paid session without a sale, saying why and what to do.
    const run = await admin.post('/api/payments/reconciliations', { days: 1 });
    expect(run.status, await run.clone().text()).toBe(202);
    const runId = (await run.json()).reconciliation.id as string;
    const findings = await eventually(
      async () => {
        const body = await (await admin.get(`/api/payments/reconciliations/${runId}`)).json();
        return body.reconciliation.state === 'done' ? (body.findings as { stripe_session_id: string; detail: string }[]) : null;
      },
      20_000,
      'the reconciliation run',
    );
    const finding = findings.find((f) => f.stripe_session_id === stray);
    expect(finding?.detail).toContain('購入済みのライセンスへの重複した支払い');
    expect(finding?.detail).toContain('返金してください');
  });

  it('a payment arriving after its seat was given away: flagged as over capacity, the seat count stays exact', async () => {
    const licenseId = await licence(1);
    const [late, prompt] = [await member(), await member()];
    const slow = await start(late, licenseId);
    // Its hold ran out (a webhook later than the grace) while Stripe still took the payment.
    await query("update checkout_sessions set hold_until = now() - interval '1 minute' where stripe_session_id = ?", [slow]);
    const taken = await start(prompt, licenseId);
    expect((await payInTab(taken)).status).toBe(303);
    await eventually(async () => (await salesOf(licenseId)) === 1, 15_000, 'the sale of the seat');
    expect((await payInTab(slow)).status).toBe(303);
    const flagged = await eventually(
      async () => {
        const row = await checkoutOf(slow);
        return row?.state === 'flagged' ? row : null;
      },
      15_000,
      'the flag',
    );
    expect(flagged.flag_reason).toMatch(/^満席のライセンスへの支払い（ライセンス #\d+、定員 1、ご注文番号 LS-/);
    expect(await salesOf(licenseId)).toBe(1);
    expect(await outcomeOf(slow, 'checkout.session.completed')).toBe('flagged: over capacity');
  });
});
