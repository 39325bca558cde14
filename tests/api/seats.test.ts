import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { aMember, anAdmin } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { buyThroughStripe, type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';
import { eventually } from '../support/wait.ts';

let shop: ShopWithStripe;
let admin: TestClient;
let seq = 0;

beforeAll(async () => {
  // Two days to pay by transfer: the boundary test moves the clock there, inside the members' sessions.
  shop = await startShopWithStripe({ env: { BANK_TRANSFER_DAYS: '2' } });
  const { email, password } = await anAdmin(shop.runtime.deps.orm);
  admin = new TestClient(shop.app, '10.34.0.1');
  expect((await admin.login(email, password)).status).toBe(200);
}, 60_000);
afterAll(async () => shop?.stop());
afterEach(() => {
  vi.useRealTimers();
});

async function member() {
  const { email, password } = await aMember(shop.runtime.deps.orm, { firstName: `席${++seq}` });
  const client = new TestClient(shop.app, `10.34.1.${seq}`);
  expect((await client.login(email, password)).status).toBe(200);
  return client;
}

/** A licence created through the admin API as JSON (times typed in Japan time). */
async function licence(fields: Record<string, unknown>) {
  const res = await admin.request('POST', '/api/licenses/create', {
    json: { name: `定員講習 ${++seq}`, description: '', price: 11000, ...fields },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()).license as { id: number; capacity: number | null; sale_starts_at: string | null };
}

const buy = (client: TestClient, licenseId: number) => client.post('/api/licenses/stripe', { licenseId, distribution: true });
const sessionOf = async (res: Response) => new URL((await res.json()).url).pathname.split('/').pop() as string;
const state = async (sessionId: string) =>
  (
    await shop.runtime.deps.orm.em.fork().execute('select state from checkout_sessions where stripe_session_id = ?', [sessionId])
  )[0]?.state as string;

/** The licence's sale state as the member's catalogue shows it. */
async function catalogueState(client: TestClient, id: number) {
  const page = await (await client.get('/api/licenses?per_page=100&sort=-id')).json();
  return page.licenses.find((l: { id: number }) => l.id === id)?.sale_state as string | undefined;
}

/** The next midnight in Japan (as an instant) and how an administrator types it. */
function nextJapanMidnight() {
  const day = 86_400_000;
  const jst = 9 * 3_600_000;
  const at = new Date((Math.floor((Date.now() + jst) / day) + 1) * day - jst);
  const text = `${new Date(at.getTime() + jst).toISOString().slice(0, 10)}T00:00`;
  return { at, text };
}

describe('seats', () => {
  it('20 members racing for the last seat: exactly one checkout, 19 × 409 sold_out', async () => {
    const { id } = await licence({ capacity: 1 });
    const members = await Promise.all(Array.from({ length: 20 }, () => member()));
    const answers = await Promise.all(members.map((client) => buy(client, id)));
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    for (const res of answers.filter((r) => r.status === 409)) {
      const body = await res.json();
      expect(body).toMatchObject({ code: 'sold_out', message: 'このライセンスは満席のため、現在お申し込みいただけません。' });
    }
    const count = await shop.runtime.deps.orm.em
      .fork()
      .execute("select count(*)::int as n from checkout_sessions where license_id = ? and state = 'open'", [id]);
    expect(count[0]?.n).toBe(1);
    const page = await (await members[0]?.get('/api/licenses?per_page=100'))?.json();
    expect(page.licenses.find((l: { id: number }) => l.id === id)).toMatchObject({
      capacity: 1,
      remaining_seats: 0,
      sale_state: 'sold_out',
    });
  });

  it('an open checkout holds its seat until its session expires (30 minutes, honoured by the emulator)', async () => {
    const { id } = await licence({ capacity: 1 });
    const [first, second] = [await member(), await member()];
    const started = Date.now();
    const res = await buy(first, id);
    expect(res.status).toBe(200);
    const sessionId = await sessionOf(res);
    const expiresAt = Number(shop.emulator.sessions.get(sessionId)?.expires_at);
    expect(expiresAt * 1000 - started).toBeGreaterThanOrEqual(30 * 60_000);
    expect(expiresAt * 1000 - started).toBeLessThan(32 * 60_000);
    expect((await buy(second, id)).status).toBe(409);
    // The session's time runs out: the emulator expires it as Stripe would, and the webhook frees the seat.
    shop.emulator.patchSession(sessionId, { expires_at: Math.floor(Date.now() / 1000) - 1 });
    await eventually(async () => (await state(sessionId)) === 'expired', 15_000, 'the session to expire');
    const detail = await (await second.get(`/api/licenses/${id}`)).json();
    expect(detail.license).toMatchObject({ remaining_seats: 1, sale_state: 'on_sale' });
    expect((await buy(second, id)).status).toBe(200);
  });

  it('a paid seat stays taken; a member retrying their own open checkout is not refused by it', async () => {
    const { id } = await licence({ capacity: 2 });
    const [a, b, c] = [await member(), await member(), await member()];
    await buyThroughStripe(shop, a, id);
    expect((await buy(b, id)).status).toBe(200);
    expect((await buy(b, id)).status).toBe(200);
    const refused = await buy(c, id);
    expect(refused.status).toBe(409);
    expect((await refused.json()).code).toBe('sold_out');
  });
});

describe('a payment awaited holds its seat until its deadline, swept or not (issue 34 review item 5)', () => {
  const deadlineOf = async (sessionId: string, column: 'konbini_expires_at' | 'bank_transfer_expires_at') => {
    const rows = await shop.runtime.deps.orm.em
      .fork()
      .execute<{ at: Date | null; state: string }[]>(
        `select ${column} as at, state from checkout_sessions where stripe_session_id = ?`,
        [sessionId],
      );
    return rows[0]?.state === 'awaiting_payment' && rows[0].at ? new Date(rows[0].at) : null;
  };

  it.each([
    ['bank_transfer', 'bank_transfer_expires_at'],
    ['konbini', 'konbini_expires_at'],
  ] as const)('%s: one second before the deadline the seat is taken; at the deadline it is free', async (method, column) => {
    const { id } = await licence({ capacity: 1 });
    const [payer, next] = [await member(), await member()];
    const sessionId = await sessionOf(await buy(payer, id));
    shop.emulator.pay(sessionId, method);
    const deadline = await eventually(() => deadlineOf(sessionId, column), 15_000, 'the deadline');
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(deadline.getTime() - 1000);
    const refused = await buy(next, id);
    expect(refused.status).toBe(409);
    expect((await refused.json()).code).toBe('sold_out');
    // Not yet swept (still awaiting payment in our table), but past its deadline: it holds nothing.
    vi.setSystemTime(deadline.getTime());
    expect(await deadlineOf(sessionId, column)).toEqual(deadline);
    expect((await (await next.get(`/api/licenses/${id}`)).json()).license).toMatchObject({ remaining_seats: 1 });
    expect((await buy(next, id)).status).toBe(200);
  });
});

describe('sale period at its Japan-time boundaries', () => {
  it('before 00:00 JST: 409 not_on_sale and 販売開始前; one second after: on sale', async () => {
    const midnight = nextJapanMidnight();
    const license = await licence({ sale_starts_at: midnight.text });
    expect(license.sale_starts_at).toBe(midnight.at.toISOString());
    const client = await member();
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(midnight.at.getTime() - 1000);
    const early = await buy(client, license.id);
    expect(early.status).toBe(409);
    const body = await early.json();
    expect(body.code).toBe('not_on_sale');
    expect(body.message).toMatch(/^このライセンスは\d+月\d+日 0:00（日本時間）から販売します。$/);
    expect((await (await client.get(`/api/licenses/${license.id}`)).json()).license.sale_state).toBe('before_sale');
    expect(await catalogueState(client, license.id)).toBe('before_sale');
    vi.setSystemTime(midnight.at.getTime() + 1000);
    // The catalogue page kept before the start (nothing changed in the table) turns by itself at the edge.
    expect(await catalogueState(client, license.id)).toBe('on_sale');
    expect((await buy(client, license.id)).status).toBe(200);
  });

  it('one second before the end at 00:00 JST: on sale; one second after: 409 not_on_sale, 販売終了', async () => {
    const midnight = nextJapanMidnight();
    const license = await licence({ sale_ends_at: midnight.text });
    const [client, late] = [await member(), await member()];
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(midnight.at.getTime() - 1000);
    expect((await buy(client, license.id)).status).toBe(200);
    vi.setSystemTime(midnight.at.getTime() + 1000);
    const refused = await buy(late, license.id);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: 'not_on_sale', message: 'このライセンスの販売期間は終了しました。' });
    expect((await (await late.get(`/api/licenses/${license.id}`)).json()).license.sale_state).toBe('sale_ended');
  });
});

describe('admin form: seats and sale period', () => {
  const form = (fields: Record<string, string>) => {
    const data = new FormData();
    for (const [name, value] of Object.entries({ name: `定員フォーム ${++seq}`, price: '5500', ...fields }))
      data.append(name, value);
    return data;
  };

  it('multipart: times typed in Japan time are stored as instants, capacity as a number; empty clears', async () => {
    const res = await admin.request('POST', '/api/licenses/create', {
      body: form({ capacity: '３０', sale_starts_at: '2026-12-01T00:00', sale_ends_at: '2027-01-31T23:59' }),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const { license } = await res.json();
    expect(license).toMatchObject({
      capacity: 30,
      sale_starts_at: '2026-11-30T15:00:00.000Z',
      sale_ends_at: '2027-01-31T14:59:00.000Z',
    });
    const edit = await admin.request('POST', `/api/licenses/${license.id}`, {
      body: form({ name: license.name, updated_at: license.updated_at, capacity: '', sale_starts_at: '' }),
    });
    expect(edit.status, await edit.clone().text()).toBe(200);
    expect((await edit.json()).license).toMatchObject({
      capacity: null,
      sale_starts_at: null,
      sale_ends_at: '2027-01-31T14:59:00.000Z',
    });
  });

  it('422 in Japanese for a bad capacity, an impossible date, or an end before the start; nothing saved', async () => {
    const bad = await admin.request('POST', '/api/licenses/create/validate', {
      body: form({ capacity: '0', sale_starts_at: '2026-02-30T00:00' }),
    });
    expect(bad.status).toBe(422);
    const { errors } = await bad.json();
    expect(errors.capacity[0]).toContain('定員は1〜100,000の整数');
    expect(errors.sale_starts_at[0]).toContain('実在する日時');
    const reversed = await admin.request('POST', '/api/licenses/create', {
      json: { name: '逆転', price: 5500, sale_starts_at: '2026-12-02T00:00', sale_ends_at: '2026-12-01T00:00' },
    });
    expect(reversed.status).toBe(422);
    expect((await reversed.json()).errors.sale_ends_at[0]).toBe('販売終了日時は販売開始日時より後の日時を入力してください。');
    const nested = await admin.request('POST', '/api/licenses/create', { json: { name: { text: 'x' }, price: 5500 } });
    expect(nested.status).toBe(422);
    expect((await nested.json()).errors.name[0]).toBe('文字列か数値で入力してください。');
  });
});
