import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aLicense, aMember, anAdmin, aRefund, aSale } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let t: TestRuntime;
let admin: TestClient;
let member: TestClient;
let licenseId: number;
let memberId: string;

/** RFC 4180 as the shop writes it (CRLF, quotes doubled). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '"' && text[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (quoted) {
      if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') {
      quoted = true;
    } else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else {
      cell += c;
    }
  }
  if (cell || row.length) rows.push([...row, cell]);
  return rows;
}

const taxOf = (amount: number) => Math.floor((amount * 10) / 110);
const sum = (rows: string[][], column: number) => rows.reduce((n, row) => n + Number(row[column]), 0);
/** What a month-end reconciliation adds up: 売上 rows, 金額, 消費税, 返金額 and its tax. */
const csvSums = (rows: string[][]) => ({
  count: rows.filter((row) => row[17] === '売上').length,
  amount: sum(rows, 8),
  tax: sum(rows, 9),
  refunded_amount: sum(rows, 14),
  refunded_tax: sum(rows, 16),
});
const summarySums = (s: Record<string, number>) => ({
  count: s.count,
  amount: s.amount,
  tax: s.tax,
  refunded_amount: s.refunded_amount,
  refunded_tax: s.refunded_tax,
});

beforeAll(async () => {
  t = await startTestRuntime();
  const orm = t.runtime.deps.orm;
  licenseId = await aLicense(orm, { name: '=BLS 受注', price: 11_000 });
  const buyer = await aMember(orm, { lastName: '髙橋', firstName: '受注' });
  memberId = buyer.id;
  await orm.em
    .fork()
    .execute('update users set last_name_kana = ?, first_name_kana = ? where id = ?', ['タカハシ', 'ジュチュウ', buyer.id]);
  // Around the end of November 2026 in Japan: 10/31 23:59:59 JST is October, 11/1 00:30 JST November.
  await aSale(orm, licenseId, { amount: 11_000, paidAt: '2026-10-31T14:59:59Z', userId: buyer.id });
  const first = await aSale(orm, licenseId, {
    amount: 11_000,
    paidAt: '2026-10-31T15:30:00Z',
    userId: buyer.id,
    paymentMethod: 'konbini',
    orderedAt: '2026-10-29T01:00:00Z',
    stripePaymentIntentId: 'pi_test_order_csv_1',
  });
  const second = await aSale(orm, licenseId, {
    amount: 9_998,
    paidAt: '2026-11-15T03:00:00Z',
    lastName: '削除',
    firstName: '済み',
  });
  await aSale(orm, licenseId, { amount: 5_500, paidAt: '2026-11-30T14:59:59Z' });
  await aSale(orm, licenseId, { amount: 3_300, paidAt: '2026-11-30T15:00:00Z' }); // 12/1 00:00 JST
  // A partial refund in November, the rest of it in December; the second sale refunded whole in November.
  await aRefund(orm, first, { amount: 4_000, refundedAt: '2026-11-03T00:00:00Z' });
  await aRefund(orm, first, { amount: 7_000, refundedAt: '2026-12-02T00:00:00Z' });
  await aRefund(orm, second, { amount: 9_998, refundedAt: '2026-11-20T00:00:00Z' });
  const anAdministrator = await anAdmin(orm);
  admin = new TestClient(t.app, '10.62.0.1');
  expect((await admin.login(anAdministrator.email, anAdministrator.password)).status).toBe(200);
  const m = await aMember(orm);
  member = new TestClient(t.app, '10.62.0.2');
  expect((await member.login(m.email, m.password)).status).toBe(200);
}, 60_000);
afterAll(async () => t?.stop());

async function ordersCsv(query: string) {
  const res = await admin.get(`/api/sales/orders.csv${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return res;
}

describe('GET /api/sales/orders.csv', () => {
  it('one 売上 row per sale paid in the Japan period; its sums equal the summary in every month and across them', async () => {
    for (const [from, to] of [
      ['2026-11-01', '2026-11-30'],
      ['2026-10-01', '2026-10-31'],
      ['2026-12-01', '2026-12-31'],
      ['2026-10-01', '2026-12-31'],
    ] as const) {
      const res = await ordersCsv(`?from=${from}&to=${to}`);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const [header, ...rows] = parseCsv(bytes.toString('utf8').slice(1));
      expect(header).toEqual([
        '注文番号',
        '注文日時',
        '支払日時',
        '会員番号',
        '氏名',
        'フリガナ',
        '所属',
        'ライセンス',
        '金額（税込）',
        'うち消費税',
        '税率',
        'お支払い方法',
        '状態',
        '返金日',
        '返金額',
        'Stripe の支払ID',
        '返金のうち消費税',
        '計上区分',
      ]);
      const summary = (await (await admin.get(`/api/sales/summary?from=${from}&to=${to}`)).json()).summary;
      expect(csvSums(rows), `${from}..${to}`).toEqual(summarySums(summary));
      // Every row's tax is the receipts' own rounding.
      for (const row of rows) expect(Number(row[9])).toBe(taxOf(Number(row[8])));
    }
  });

  it('writes the order as an accountant reads it: current member, kana, method, refunds by the period end', async () => {
    const rows = parseCsv(await (await ordersCsv('?from=2026-11-01&to=2026-11-30')).text()).slice(1);
    expect(rows).toHaveLength(3);
    const [first, second, third] = rows as [string[], string[], string[]];
    expect(first[0]).toMatch(/^LS-\d{4}-/);
    expect(first.slice(1, 15)).toEqual([
      '2026/10/29 10:00:00',
      '2026/11/01 00:30:00',
      memberId,
      '髙橋 受注',
      'タカハシ ジュチュウ',
      '〇〇消防局',
      "'=BLS 受注",
      '11000',
      '1000',
      '10%',
      'コンビニ払い',
      '一部返金',
      '2026/11/03',
      '4000',
    ]);
    expect(first.slice(15)).toEqual(['pi_test_order_csv_1', '363', '売上']);
    // A sale whose member is gone: the purchase-time name; refunded whole.
    expect(second.slice(3, 6)).toEqual(['', '削除 済み', '']);
    expect(second.slice(11, 15)).toEqual(['クレジットカード', '返金済み', '2026/11/20', '9998']);
    expect(third.slice(12, 15)).toEqual(['出力待ち', '', '0']);
    // December's file has the rest of the first sale's refund as a 返金のみ row: 返金済み by then.
    const december = parseCsv(await (await ordersCsv('?from=2026-12-01&to=2026-12-31')).text()).slice(1);
    expect(december.map((row) => row[17])).toEqual(['売上', '返金のみ']);
    expect(december[1]?.slice(8, 18)).toEqual([
      '0',
      '0',
      '10%',
      'コンビニ払い',
      '返金済み',
      '2026/12/02',
      '7000',
      'pi_test_order_csv_1',
      '636',
      '返金のみ',
    ]);
    // Over the three months it is one sale, its whole refund in its own row.
    const all = parseCsv(await (await ordersCsv('?from=2026-10-01&to=2026-12-31')).text()).slice(1);
    const whole = all.filter((row) => row[15] === 'pi_test_order_csv_1');
    expect(whole.map((row) => row.slice(12, 18))).toEqual([
      ['返金済み', '2026/12/02', '11000', 'pi_test_order_csv_1', '999', '売上'],
    ]);
  });

  it('CP932 on request, audited, administrators only, bad periods refused in Japanese', async () => {
    const res = await ordersCsv('?from=2026-11-01&to=2026-11-30&encoding=shift_jis');
    expect(res.headers.get('content-type')).toContain('Shift_JIS');
    expect(res.headers.get('content-disposition')).toContain('orders_2026-11-01_2026-11-30.csv');
    const text = iconv.decode(Buffer.from(await res.arrayBuffer()), 'cp932');
    expect(text.startsWith('注文番号,')).toBe(true);
    expect(text).toContain('髙橋 受注');
    const audit = await (await admin.get('/api/audit-logs?action=sale.orders.download')).json();
    expect(audit.audit_logs.length).toBeGreaterThanOrEqual(1);
    expect(audit.audit_logs[0].action_label).toBe('受注CSVのダウンロード');
    expect((await member.get('/api/sales/orders.csv')).status).toBe(403);
    const reversed = await admin.get('/api/sales/orders.csv?from=2026-11-30&to=2026-11-01');
    expect(reversed.status).toBe(422);
    expect((await reversed.json()).errors.to).toEqual(['終了日は開始日と同じか、それより後の日付を指定してください。']);
  });
});

describe('GET /api/sales?payment_method=', () => {
  it('lists the sales paid that way; bank_transfer is accepted and matches none yet; anything else is a 422', async () => {
    const konbini = await (await admin.get('/api/sales?payment_method=konbini&per_page=100')).json();
    expect(konbini.sales.map((s: { payment_method: string }) => s.payment_method)).toEqual(['konbini']);
    const card = await (await admin.get('/api/sales?payment_method=card&per_page=100')).json();
    expect(card.total).toBe(4);
    expect(card.sales.every((s: { payment_method: string }) => s.payment_method === 'card')).toBe(true);
    const bank = await admin.get('/api/sales?payment_method=bank_transfer');
    expect(bank.status).toBe(200);
    expect((await bank.json()).total).toBe(0);
    const bad = await admin.get('/api/sales?payment_method=cash');
    expect(bad.status).toBe(422);
    expect((await bad.json()).errors.payment_method[0]).toContain('お支払い方法');
  });
});
