import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aLicense, aMember, anAdmin, aRefund, aSale } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let t: TestRuntime;
let admin: TestClient;
let member: TestClient;
const licences: Record<'bls' | 'acls' | 'formula', number> = { bls: 0, acls: 0, formula: 0 };

interface Seeded {
  license: keyof typeof licences;
  amount: number;
  paidAt: string;
  refundedAt?: string;
}

/**
 * Sales around November 2026 in Japan (2026-10-31T15:00Z to 2026-11-30T15:00Z): the month's edges
 * in UTC and JST, refunds in and out of the month, a refund of a sale paid the month before, prices
 * whose tax rounds (¥9,998: ¥908 each, ¥2,724 for three but ¥2,726 on their total) and an old price.
 */
const SEEDED: Seeded[] = [
  { license: 'bls', amount: 11_000, paidAt: '2026-10-31T15:30:00Z' }, // 11/1 00:30 JST: November
  { license: 'bls', amount: 11_000, paidAt: '2026-10-31T14:59:59Z', refundedAt: '2026-11-02T01:00:00Z' }, // 10/31 23:59:59 JST
  { license: 'acls', amount: 9_998, paidAt: '2026-11-10T03:00:00Z' },
  { license: 'acls', amount: 9_998, paidAt: '2026-11-15T03:00:00Z', refundedAt: '2026-11-20T05:00:00Z' },
  { license: 'acls', amount: 9_998, paidAt: '2026-11-30T14:59:59Z' }, // 11/30 23:59:59 JST
  { license: 'bls', amount: 5_500, paidAt: '2026-11-30T15:00:00Z' }, // 12/1 00:00 JST: December
  { license: 'bls', amount: 1_234, paidAt: '2026-11-05T00:00:00Z', refundedAt: '2026-12-01T00:00:00Z' }, // refund 12/1 09:00 JST
  { license: 'acls', amount: 9_998, paidAt: '2026-09-30T03:00:00Z', refundedAt: '2026-10-31T15:00:00Z' }, // refund 11/1 00:00 JST
  { license: 'formula', amount: 3_300, paidAt: '2026-11-20T10:00:00Z' },
];

/** The Japan date of an instant. */
const japanDay = (iso: string) => new Date(Date.parse(iso) + 9 * 3_600_000).toISOString().slice(0, 10);
/** 消費税 inside a tax-included amount at 10%, rounded down per sale (as each 領収書 prints it). */
const taxOf = (amount: number) => Math.floor((amount * 10) / 110);

/** What the summary of [from, to] must say, computed from the seeded rows alone. */
function expected(from: string, to: string) {
  const within = (iso?: string) => iso !== undefined && japanDay(iso) >= from && japanDay(iso) <= to;
  const paid = SEEDED.filter((s) => within(s.paidAt));
  const refunded = SEEDED.filter((s) => within(s.refundedAt));
  const sum = (rows: Seeded[], f: (s: Seeded) => number) => rows.reduce((n, s) => n + f(s), 0);
  const ids = new Set([...paid, ...refunded].map((s) => licences[s.license]));
  const byLicense = [...ids].map((id) => {
    const p = paid.filter((s) => licences[s.license] === id);
    const r = refunded.filter((s) => licences[s.license] === id);
    return {
      license_id: id,
      count: p.length,
      amount: sum(p, (s) => s.amount),
      tax: sum(p, (s) => taxOf(s.amount)),
      refunded_count: r.length,
      refunded_amount: sum(r, (s) => s.amount),
    };
  });
  const amount = sum(paid, (s) => s.amount);
  const refundedAmount = sum(refunded, (s) => s.amount);
  return {
    from,
    to,
    count: paid.length,
    amount,
    tax: sum(paid, (s) => taxOf(s.amount)),
    refunded_count: refunded.length,
    refunded_amount: refundedAmount,
    refunded_tax: sum(refunded, (s) => taxOf(s.amount)),
    net_amount: amount - refundedAmount,
    by_license: byLicense,
  };
}

const NAMES: Record<keyof typeof licences, string> = {
  bls: 'BLSプロバイダー（改定後）',
  acls: 'ACLS',
  formula: '=HYPERLINK("http://x") 髙橋式🚑',
};

async function summary(query: string) {
  const res = await admin.get(`/api/sales/summary${query}`);
  expect(res.status, query).toBe(200);
  return (await res.json()).summary;
}

beforeAll(async () => {
  t = await startTestRuntime();
  const orm = t.runtime.deps.orm;
  licences.bls = await aLicense(orm, { name: 'BLSプロバイダー', price: 11_000 });
  licences.acls = await aLicense(orm, { name: NAMES.acls, price: 9_998 });
  licences.formula = await aLicense(orm, { name: NAMES.formula, price: 3_300 });
  for (const s of SEEDED) {
    const id = await aSale(orm, licences[s.license], { amount: s.amount, paidAt: s.paidAt });
    if (s.refundedAt) await aRefund(orm, id, { refundedAt: s.refundedAt });
  }
  // Renamed after the sales: the summary names a licence as the licence list does now.
  await orm.em.fork().execute('update licenses set name = ? where id = ?', [NAMES.bls, licences.bls]);
  const anAdministrator = await anAdmin(orm);
  admin = new TestClient(t.app, '10.61.0.1');
  expect((await admin.login(anAdministrator.email, anAdministrator.password)).status).toBe(200);
  const aMemberAccount = await aMember(orm);
  member = new TestClient(t.app, '10.61.0.2');
  expect((await member.login(aMemberAccount.email, aMemberAccount.password)).status).toBe(200);
}, 60_000);
afterAll(async () => t?.stop());

describe('GET /api/sales/summary', () => {
  it('totals exactly the sales paid and refunded in each period, by Japan day, per licence', async () => {
    const periods = [
      ['2026-11-01', '2026-11-30'],
      ['2026-10-01', '2026-10-31'],
      ['2026-12-01', '2026-12-31'],
      ['2026-09-01', '2026-12-31'],
      ['2026-11-01', '2026-11-01'],
      ['2026-11-02', '2026-11-02'],
      ['2027-01-01', '2027-01-31'],
    ] as const;
    for (const [from, to] of periods) {
      const got = await summary(`?from=${from}&to=${to}`);
      const want = expected(from, to);
      const { by_license: byLicense, ...totals } = got;
      const { by_license: wantByLicense, ...wantTotals } = want;
      expect(totals, `${from}..${to}`).toEqual({ ...wantTotals, net_tax: wantTotals.tax - wantTotals.refunded_tax });
      const sorted = <T extends { license_id: number }>(rows: T[]) => [...rows].sort((a, b) => a.license_id - b.license_id);
      expect(
        sorted(byLicense as { name: string; license_id: number }[]).map(({ name: _name, ...row }) => row),
        `${from}..${to}`,
      ).toEqual(sorted(wantByLicense));
      // The licences' rows add up to the totals.
      const add = (field: 'count' | 'amount' | 'tax' | 'refunded_count' | 'refunded_amount') =>
        byLicense.reduce((n: number, row: Record<string, number>) => n + (row[field] ?? 0), 0);
      expect(
        { count: add('count'), amount: add('amount'), tax: add('tax'), rc: add('refunded_count'), ra: add('refunded_amount') },
        `${from}..${to}`,
      ).toEqual({ count: got.count, amount: got.amount, tax: got.tax, rc: got.refunded_count, ra: got.refunded_amount });
    }
  });

  it('November in numbers: the month edges, refunds by refunded_at, tax per sale as the receipts print it', async () => {
    const november = await summary('?from=2026-11-01&to=2026-11-30');
    // Paid: 11,000 (11/1 00:30 JST) + 3 × 9,998 + 1,234 + 3,300; not the 10/31 23:59 JST sale, not the 12/1 00:00 one.
    expect(november.count).toBe(6);
    expect(november.amount).toBe(11_000 + 3 * 9_998 + 1_234 + 3_300);
    // 1,000 + 3 × 908 + 112 + 300 = 4,136 — on the total it would be floor(45,528 × 10 / 110) = 4,138.
    expect(november.tax).toBe(1_000 + 3 * 908 + 112 + 300);
    expect(Math.floor((november.amount * 10) / 110)).toBe(4_138);
    expect(november.tax).toBe([11_000, 9_998, 9_998, 9_998, 1_234, 3_300].reduce((n, amount) => n + taxOf(amount), 0));
    // Refunded in November: the October sale (11/2), the November one (11/20) and the September one (11/1 00:00 JST).
    expect(november.refunded_count).toBe(3);
    expect(november.refunded_amount).toBe(11_000 + 9_998 + 9_998);
    expect(november.net_amount).toBe(november.amount - november.refunded_amount);
    // The licence's current name, from the licences module.
    const names = Object.fromEntries(
      november.by_license.map((row: { license_id: number; name: string }) => [row.license_id, row.name]),
    );
    expect(names).toEqual({ [licences.bls]: NAMES.bls, [licences.acls]: NAMES.acls, [licences.formula]: NAMES.formula });
    // Largest sales first.
    expect(november.by_license.map((row: { license_id: number }) => row.license_id)).toEqual([
      licences.acls,
      licences.bls,
      licences.formula,
    ]);
    // A day with a refund and no sale: 純売上 below zero.
    const refundOnly = await summary('?from=2026-11-02&to=2026-11-02');
    expect(refundOnly).toMatchObject({ count: 0, amount: 0, refunded_count: 1, refunded_amount: 11_000, net_amount: -11_000 });
    expect(refundOnly.by_license).toEqual([
      { license_id: licences.bls, name: NAMES.bls, count: 0, amount: 0, tax: 0, refunded_count: 1, refunded_amount: 11_000 },
    ]);
    // Nothing in the period: zeros and no rows.
    expect(await summary('?from=2020-01-01&to=2020-01-31')).toMatchObject({ count: 0, amount: 0, tax: 0, by_license: [] });
  });

  it('fills a missing end: one date names its month, none names this month in Japan', async () => {
    expect(await summary('?from=2026-11-10')).toMatchObject({ from: '2026-11-10', to: '2026-11-30' });
    expect(await summary('?to=2026-11-10')).toMatchObject({ from: '2026-11-01', to: '2026-11-10' });
    expect(await summary('?from=2028-02-03&to=')).toMatchObject({ from: '2028-02-03', to: '2028-02-29' });
    const today = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Tokyo' }).format(new Date());
    const thisMonth = await summary('');
    expect(thisMonth.from).toBe(`${today.slice(0, 7)}-01`);
    const [year, month] = today.split('-').map(Number) as [number, number];
    expect(thisMonth.to).toBe(new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10));
  });

  it('refuses a reversed or too long period and bad dates with the 422 shape in Japanese', async () => {
    const reversed = await admin.get('/api/sales/summary?from=2026-11-30&to=2026-11-01');
    expect(reversed.status).toBe(422);
    expect(await reversed.json()).toEqual({
      message: '不正な値が入力されました。',
      errors: { to: ['終了日は開始日と同じか、それより後の日付を指定してください。'] },
    });
    const long = await admin.get('/api/sales/summary?from=2025-01-01&to=2026-01-02');
    expect(long.status).toBe(422);
    expect((await long.json()).errors.to).toEqual(['集計期間は366日以内で指定してください。']);
    expect((await admin.get('/api/sales/summary?from=2024-01-01&to=2024-12-31')).status).toBe(200); // 366 days (leap year)
    for (const query of ['from=2026-02-30', 'to=2026/11/01', 'from=1999-12-31', 'to=x']) {
      const res = await admin.get(`/api/sales/summary?${query}`);
      expect(res.status, query).toBe(422);
      const body = await res.json();
      expect(Object.values(body.errors).flat().join(''), query).toMatch(/[ぁ-んァ-ン一-龥]/);
    }
    // The CSV takes the same period and refuses the same way.
    expect((await admin.get('/api/sales/summary.csv?from=2026-11-30&to=2026-11-01')).status).toBe(422);
    expect((await admin.get('/api/sales/summary.csv?encoding=euc-jp')).status).toBe(422);
  });

  it('is for administrators only', async () => {
    expect((await member.get('/api/sales/summary?from=2026-11-01&to=2026-11-30')).status).toBe(403);
    expect((await member.get('/api/sales/summary.csv?from=2026-11-01&to=2026-11-30')).status).toBe(403);
    const anonymous = new TestClient(t.app, '10.61.0.3');
    expect((await anonymous.get('/api/sales/summary')).status).toBe(401);
    expect((await anonymous.get('/api/sales/summary.csv')).status).toBe(401);
  });
});

describe('GET /api/sales/summary.csv', () => {
  const HEADER = '集計開始日,集計終了日,ライセンスID,ライセンス名,件数,売上金額（税込）,うち消費税,返金件数,返金額,純売上';

  it('is the summary as a UTF-8 CSV with BOM, formula-safe, named 売上集計_2026-11.csv, and audited', async () => {
    const res = await admin.get('/api/sales/summary.csv?from=2026-11-01&to=2026-11-30');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=UTF-8');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="sales-summary_2026-11.csv"; filename*=UTF-8''${encodeURIComponent('売上集計_2026-11.csv')}`,
    );
    const bytes = Buffer.from(await res.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.subarray(3).toString('utf8');
    expect(text.endsWith('\r\n')).toBe(true);
    const lines = text.slice(0, -2).split('\r\n');
    expect(lines[0]).toBe(HEADER);
    const want = expected('2026-11-01', '2026-11-30');
    const row = (id: number) => want.by_license.find((r) => r.license_id === id);
    const acls = row(licences.acls);
    const bls = row(licences.bls);
    const formula = row(licences.formula);
    const line = (name: string, r: NonNullable<typeof acls>) =>
      `2026-11-01,2026-11-30,${r.license_id},${name},${r.count},${r.amount},${r.tax},${r.refunded_count},${r.refunded_amount},${r.amount - r.refunded_amount}`;
    expect(lines.slice(1)).toEqual([
      line(NAMES.acls, acls as NonNullable<typeof acls>),
      line(NAMES.bls, bls as NonNullable<typeof bls>),
      // A name that starts a formula is written as text (quoted: it holds a quote).
      `2026-11-01,2026-11-30,${licences.formula},"'=HYPERLINK(""http://x"") 髙橋式🚑",1,3300,300,0,0,3300`,
      `2026-11-01,2026-11-30,,合計,${want.count},${want.amount},${want.tax},${want.refunded_count},${want.refunded_amount},${want.net_amount}`,
    ]);
    expect(formula).toMatchObject({ count: 1, amount: 3300 });

    const [audit] = await t.runtime.deps.orm.em
      .fork()
      .execute<{ action: string; target_type: string; target_id: string; after: Record<string, unknown> }[]>(
        "select action, target_type, target_id, after from audit_logs where action = 'sale.summary.download' order by created_at desc limit 1",
      );
    expect(audit).toEqual({
      action: 'sale.summary.download',
      target_type: 'sales_summary',
      target_id: '2026-11-01〜2026-11-30',
      after: { period: '2026-11-01〜2026-11-30', encoding: 'utf-8', rows: 3 },
    });
  });

  it('writes CP932 without BOM when asked, with 〓 for what CP932 cannot hold; a negative 純売上 stays a number', async () => {
    const res = await admin.get('/api/sales/summary.csv?from=2026-11-01&to=2026-11-30&encoding=shift_jis');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=Shift_JIS');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes[0]).not.toBe(0xef);
    const text = iconv.decode(bytes, 'cp932');
    const lines = text.slice(0, -2).split('\r\n');
    expect(lines[0]).toBe(HEADER);
    // 髙 is in CP932 (an NEC/IBM extension); the ambulance emoji is not.
    expect(lines).toContain(`2026-11-01,2026-11-30,${licences.formula},"'=HYPERLINK(""http://x"") 髙橋式〓",1,3300,300,0,0,3300`);
    expect(lines.at(-1)?.startsWith('2026-11-01,2026-11-30,,合計,6,')).toBe(true);

    // A custom period is named by its dates; a refund alone gives a negative 純売上 written as a number.
    const day = await admin.get('/api/sales/summary.csv?from=2026-11-02&to=2026-11-02');
    expect(day.headers.get('content-disposition')).toContain(
      `filename*=UTF-8''${encodeURIComponent('売上集計_2026-11-02_2026-11-02.csv')}`,
    );
    const dayLines = Buffer.from(await day.arrayBuffer())
      .subarray(3)
      .toString('utf8')
      .trimEnd()
      .split('\r\n');
    expect(dayLines.at(-1)).toBe('2026-11-02,2026-11-02,,合計,0,0,0,1,11000,-11000');
  });
});
