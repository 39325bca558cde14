import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { japanDay } from '../../src/lib/japan-time.ts';
import { aLicense, aMember, anAdmin, aSale } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let t: TestRuntime;
let admin: TestClient;
const DAY_MS = 86_400_000;

beforeAll(async () => {
  t = await startTestRuntime();
  const account = await anAdmin(t.runtime.deps.orm);
  admin = new TestClient(t.app, '10.34.0.1');
  await admin.login(account.email, account.password);
  const licenseId = await aLicense(t.runtime.deps.orm);
  const member = await aMember(t.runtime.deps.orm);
  const now = Date.now();
  await aSale(t.runtime.deps.orm, licenseId, { userId: member.id, amount: 5_500 });
  await aSale(t.runtime.deps.orm, licenseId, { amount: 11_000, refunded: true });
  await aSale(t.runtime.deps.orm, licenseId, { amount: 3_300, paidAt: new Date(now - 3 * DAY_MS), status: 2 });
  await aSale(t.runtime.deps.orm, licenseId, { amount: 2_200, paidAt: new Date(now - 40 * DAY_MS) });
});
afterAll(async () => t?.stop());

const json = async (path: string) => {
  const res = await admin.get(path);
  expect(res.status, path).toBe(200);
  return res.json();
};

describe('GET /api/dashboard', () => {
  it('gives figures equal to the lists they link to', async () => {
    const d = await json('/api/dashboard');
    const today = japanDay(new Date());
    const monthStart = `${today.slice(0, 8)}01`;
    for (const [figures, from] of [
      [d.today, today],
      [d.month, monthStart],
    ] as const) {
      const { summary } = await json(`/api/sales/summary?from=${from}&to=${today}`);
      expect(figures).toMatchObject({
        from,
        to: today,
        count: summary.count,
        amount: summary.amount,
        refunded_count: summary.refunded_count,
        refunded_amount: summary.refunded_amount,
      });
      expect(figures.new_members).toBe((await json(`/api/users?created_from=${from}&created_to=${today}`)).total);
    }
    expect(d.today.count).toBe(2);
    expect(d.today.new_members).toBeGreaterThanOrEqual(2);
    expect(d.awaiting_export).toBe((await json('/api/sales?status=0')).total);
    expect(d.konbini_awaiting).toBe((await json('/api/payments/pending-konbini?state=awaiting')).total);
    expect(d.failed_mails).toBe((await json('/api/mails/summary')).summary.failed_for_good);
    expect(d.reconciliations_flagged).toBe((await json('/api/payments/reconciliations?unacknowledged=true')).total);
  });

  it('has 30 days of daily sales ending today, each day equal to 売上集計 for that day', async () => {
    const { series } = await json('/api/dashboard');
    expect(series).toHaveLength(30);
    expect(series.at(-1).date).toBe(japanDay(new Date()));
    for (const day of series.filter((s: { count: number }) => s.count > 0)) {
      const { summary } = await json(`/api/sales/summary?from=${day.date}&to=${day.date}`);
      expect([day.count, day.amount]).toEqual([summary.count, summary.amount]);
    }
    expect(series.reduce((n: number, s: { count: number }) => n + s.count, 0)).toBe(3);
  });
});
