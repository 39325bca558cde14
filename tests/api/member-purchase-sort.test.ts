import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Em } from '../../src/db/orm.ts';
import { recordEvent, transact } from '../../src/events/outbox.ts';
import { aLicense, aMember, anAdmin, aSale } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { eventually } from '../support/wait.ts';

/** The member list's purchase figures: kept by accounts from SalePaid / SaleRefunded (workers running). */
let t: TestRuntime;
let admin: TestClient;
const ids: Record<'a' | 'b' | 'c', string> = { a: '', b: '', c: '' };
const DAY_MS = 86_400_000;

const announce = (name: 'SalePaid' | 'SaleRefunded', saleId: number) =>
  transact(t.runtime.deps.orm.em as Em, async (tx) => {
    recordEvent(tx, name, { saleId });
  });

beforeAll(async () => {
  t = await startTestRuntime({ mode: 'all' });
  const account = await anAdmin(t.runtime.deps.orm);
  admin = new TestClient(t.app, '10.35.0.1');
  await admin.login(account.email, account.password);
  const licenseId = await aLicense(t.runtime.deps.orm);
  for (const key of ['a', 'b', 'c'] as const) ids[key] = (await aMember(t.runtime.deps.orm, { lastName: `購入${key}` })).id;
  const orm = t.runtime.deps.orm;
  const now = Date.now();
  const sales = [
    await aSale(orm, licenseId, { userId: ids.a, amount: 5_500, paidAt: new Date(now - 5 * DAY_MS) }),
    await aSale(orm, licenseId, { userId: ids.a, amount: 11_000, paidAt: new Date(now - 4 * DAY_MS) }),
    await aSale(orm, licenseId, { userId: ids.b, amount: 33_000, paidAt: new Date(now - DAY_MS) }),
  ];
  const refunded = await aSale(orm, licenseId, { userId: ids.b, amount: 99_000, paidAt: new Date(now), refunded: true });
  for (const id of sales) await announce('SalePaid', id);
  await announce('SalePaid', refunded);
  await announce('SaleRefunded', refunded);
});
afterAll(async () => t?.stop());

type Listed = { id: string; purchase_count: number; paid_total: number; last_purchase_at: string | null };
const order = async (sort: string) => {
  const res = await admin.get(`/api/users?sort=${sort}&name=${encodeURIComponent('購入')}`);
  expect(res.status).toBe(200);
  return ((await res.json()).users as Listed[]).map((u) => u.id);
};

describe('GET /api/users?sort=purchases|paid_total|last_purchase', () => {
  it('shows each member’s paid sales that stand (refunds left out), kept from sale events', async () => {
    const users = await eventually(
      async () => {
        const list = (await (await admin.get(`/api/users?sort=-paid_total&name=${encodeURIComponent('購入')}`)).json())
          .users as Listed[];
        return list[0]?.paid_total === 33_000 && list[1]?.paid_total === 16_500 ? list : undefined;
      },
      30_000,
      'the purchase figures',
    );
    expect(users.map((u) => [u.id, u.purchase_count, u.paid_total])).toEqual([
      [ids.b, 1, 33_000],
      [ids.a, 2, 16_500],
      [ids.c, 0, 0],
    ]);
    expect(users[2]?.last_purchase_at).toBeNull();
  });

  it('sorts both ways on each figure, members who never bought last by last purchase', async () => {
    expect(await order('purchases')).toEqual([ids.c, ids.b, ids.a]);
    expect(await order('-purchases')).toEqual([ids.a, ids.b, ids.c]);
    expect(await order('paid_total')).toEqual([ids.c, ids.a, ids.b]);
    expect(await order('-last_purchase')).toEqual([ids.b, ids.a, ids.c]);
    expect(await order('last_purchase')).toEqual([ids.a, ids.b, ids.c]);
    const bad = await admin.get('/api/users?sort=spend');
    expect(bad.status).toBe(422);
  });
});
