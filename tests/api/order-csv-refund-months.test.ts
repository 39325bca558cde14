import { afterAll, beforeAll, expect, it } from 'vitest';
import { aLicense, aMember, anAdmin, aRefund, aSale } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * 受注CSV against 売上集計 when a sale is refunded in later months (decision 0044): a 返金のみ row in
 * each month a refund was confirmed, so every month's file adds up to that month's summary, and a
 * closed month's file stays as it was downloaded.
 */
let t: TestRuntime;
let admin: TestClient;
let licenseId: number;
let memberId: string;

const MONTHS = {
  september: ['2026-09-01', '2026-09-30'],
  october: ['2026-10-01', '2026-10-31'],
  november: ['2026-11-01', '2026-11-30'],
  december: ['2026-12-01', '2026-12-31'],
  quarter: ['2026-10-01', '2026-12-31'],
} as const;
type Month = keyof typeof MONTHS;

beforeAll(async () => {
  t = await startTestRuntime();
  const orm = t.runtime.deps.orm;
  licenseId = await aLicense(orm, { name: '月またぎ返金', price: 11_000 });
  memberId = (await aMember(orm, { lastName: '月末', firstName: '返金' })).id;
  const a = await anAdmin(orm);
  admin = new TestClient(t.app, '10.66.0.1');
  expect((await admin.login(a.email, a.password)).status).toBe(200);
}, 60_000);
afterAll(async () => t?.stop());

/** Quoted cells aside (none here): the rows of a month's file, header dropped. */
async function rowsOf(month: Month): Promise<{ text: string; rows: string[][] }> {
  const [from, to] = MONTHS[month];
  const res = await admin.get(`/api/sales/orders.csv?from=${from}&to=${to}`);
  expect(res.status).toBe(200);
  const text = await res.text();
  const rows = text
    .split('\r\n')
    .filter(Boolean)
    .slice(1)
    .map((line) => line.split(','));
  return { text, rows };
}

async function expectSumsEqualSummary(month: Month) {
  const [from, to] = MONTHS[month];
  const { rows } = await rowsOf(month);
  const sum = (column: number) => rows.reduce((n, row) => n + Number(row[column]), 0);
  const summary = (await (await admin.get(`/api/sales/summary?from=${from}&to=${to}`)).json()).summary;
  expect(
    {
      count: rows.filter((row) => row[17] === '売上').length,
      amount: sum(8),
      tax: sum(9),
      refunded_amount: sum(14),
      refunded_tax: sum(16),
      net: sum(8) - sum(14),
    },
    month,
  ).toEqual({
    count: summary.count,
    amount: summary.amount,
    tax: summary.tax,
    refunded_amount: summary.refunded_amount,
    refunded_tax: summary.refunded_tax,
    net: summary.net_amount,
  });
  return rows;
}

it('a sale paid in October, refunded in part in November and the rest in December: every month adds up', async () => {
  const orm = t.runtime.deps.orm;
  // 2026-10-01 00:00:00 JST: October's first second.
  const sale = await aSale(orm, licenseId, { amount: 11_000, paidAt: '2026-09-30T15:00:00Z', userId: memberId });
  // 2026-09-30 23:59:59 JST: September's, refunded whole at October's last second (10/31 23:59:59 JST).
  const september = await aSale(orm, licenseId, { amount: 5_500, paidAt: '2026-09-30T14:59:59Z', userId: memberId });
  await aRefund(orm, september, { amount: 5_500, refundedAt: '2026-10-31T14:59:59Z' });
  const october = await rowsOf('october');
  expect(october.rows.map((row) => [row[8], row[12], row[13], row[14], row[16], row[17]])).toEqual([
    ['11000', '出力待ち', '', '0', '0', '売上'],
    ['0', '返金済み', '2026/10/31', '5500', '500', '返金のみ'],
  ]);

  // 2026-11-01 00:00 JST: November's refund of 4,000 of it.
  await aRefund(orm, sale, { amount: 4_000, refundedAt: '2026-10-31T15:00:00Z' });
  const november = await rowsOf('november');
  expect(november.rows).toHaveLength(1);
  expect(november.rows[0]?.slice(2, 4)).toEqual(['2026/10/01 00:00:00', memberId]);
  expect(november.rows[0]?.slice(8, 18)).toEqual([
    '0',
    '0',
    '10%',
    'クレジットカード',
    '一部返金',
    '2026/11/01',
    '4000',
    '',
    '363',
    '返金のみ',
  ]);

  // 2026-12-01 00:00 JST: the remaining 7,000 in December.
  await aRefund(orm, sale, { refundedAt: '2026-11-30T15:00:00Z' });
  const december = await expectSumsEqualSummary('december');
  expect(december.map((row) => row.slice(12, 18))).toEqual([['返金済み', '2026/12/01', '7000', '', '636', '返金のみ']]);

  for (const month of Object.keys(MONTHS) as Month[]) await expectSumsEqualSummary(month);
  // Closed months' files are as they were downloaded, byte for byte.
  expect((await rowsOf('october')).text).toBe(october.text);
  expect((await rowsOf('november')).text).toBe(november.text);
  // Over the quarter the October sale is one 売上 row with its whole refund; September's refund a 返金のみ row.
  const quarter = await expectSumsEqualSummary('quarter');
  expect(quarter.map((row) => [row[8], row[12], row[14], row[16], row[17]])).toEqual([
    ['11000', '返金済み', '11000', '999', '売上'],
    ['0', '返金済み', '5500', '500', '返金のみ'],
  ]);
  // September's file: its sale, not refunded by September's end.
  const sept = await expectSumsEqualSummary('september');
  expect(sept.map((row) => [row[8], row[12], row[14], row[17]])).toEqual([['5500', '出力待ち', '0', '売上']]);
});
