import { randomUUID } from 'node:crypto';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import type { SaleStatus } from '../../src/modules/sales/index.ts';
import { handlers } from '../../workers/handlers.ts';
import { aLicense, aMember, aSale } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { eventually } from '../support/wait.ts';

let t: TestRuntime;
let smtp: TestSmtp;
let admin: TestClient;
let member: TestClient;
let licenseA: number;
let licenseB: number;

const sale = (
  license: number,
  buyer: { last: string; first: string; email: string; affiliation: number; name: string; other?: string },
  paidAt: string,
  status: SaleStatus = 0,
  refunded = false,
) =>
  aSale(t.runtime.deps.orm, license, {
    lastName: buyer.last,
    firstName: buyer.first,
    email: buyer.email,
    affiliation: buyer.affiliation,
    affiliationName: buyer.name,
    affiliationOther: buyer.other ?? null,
    paidAt,
    status,
    refunded,
  });

const tanaka = { last: '田中', first: '一郎', email: 'tanaka@fire.example.jp', affiliation: 4, name: '〇〇消防局' };
const suzuki = { last: '鈴木', first: '花子', email: 'suzuki@example.jp', affiliation: 6, name: '〇〇社', other: '民間救急' };
const ito = { last: '伊藤', first: '三郎', email: 'ito@police.example.jp', affiliation: 2, name: '〇〇警察署' };
const ids: Record<string, number> = {};

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestRuntime({ mode: 'all', smtpUrl: smtp.url, env: { EXPORT_GROUP_NAME: '〇〇研修グループ' } });
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'sales-admin@example.jp', password: 'sales-admin-123' });
  await aMember(t.runtime.deps.orm, {
    email: 'member@example.jp',
    password: 'member-pass-123',
    lastName: 'm',
    firstName: 'm',
    emailVerified: true,
  });
  licenseA = await aLicense(t.runtime.deps.orm, { name: 'BLS', price: 11_000 });
  licenseB = await aLicense(t.runtime.deps.orm, { name: 'ACLS', price: 22_000 });
  // 2026-04-01 00:30 JST is 2026-03-31 15:30 UTC.
  ids.tanaka = await sale(licenseA, tanaka, '2026-03-31T15:30:00Z');
  ids.suzuki = await sale(licenseA, suzuki, '2026-04-02T03:00:00Z');
  ids.itoRefunded = await sale(licenseA, ito, '2026-04-03T03:00:00Z', 0, true);
  ids.itoB = await sale(licenseB, ito, '2026-04-04T03:00:00Z', 1);
  ids.done = await sale(licenseB, tanaka, '2026-04-05T03:00:00Z', 2);
  admin = new TestClient(t.app, '10.60.0.1');
  await admin.login('sales-admin@example.jp', 'sales-admin-123');
  member = new TestClient(t.app, '10.60.0.2');
  await member.login('member@example.jp', 'member-pass-123');
});
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

const saleIds = async (query: string) =>
  ((await (await admin.get(`/api/sales${query}`)).json()).sales as { id: number }[]).map((s) => s.id).sort();

describe('GET /api/sales', () => {
  it('filters by licence, status, buyer name or e-mail and Japan-time paid date, with paging', async () => {
    expect(await saleIds(`?license_id=${licenseA}`)).toEqual([ids.tanaka, ids.suzuki, ids.itoRefunded].sort());
    expect(await saleIds('?status=1')).toEqual([ids.itoB]);
    expect(await saleIds(`?q=${encodeURIComponent('田中')}`)).toEqual([ids.tanaka, ids.done].sort());
    expect(await saleIds('?q=police')).toEqual([ids.itoRefunded, ids.itoB].sort());
    expect(await saleIds('?paid_from=2026-04-01&paid_to=2026-04-01')).toEqual([ids.tanaka]);
    expect(await saleIds('?paid_to=2026-03-31')).toEqual([]);
    const page = await (await admin.get('/api/sales?per_page=2&page=3')).json();
    expect(page).toMatchObject({ total: 5, page: 3, per_page: 2 });
    expect(page.sales).toHaveLength(1);
    expect((await admin.get('/api/sales?status=3')).status).toBe(422);
    expect((await admin.get('/api/sales?paid_from=2026-13-01')).status).toBe(422);
    expect((await member.get('/api/sales')).status).toBe(403);
  });
});

describe('POST /api/sales/update', () => {
  it('moves a licence\u2019s sales one step forward, never refunded ones, and refuses anything else', async () => {
    for (const body of [
      { status: 3, licenseId: licenseA },
      { status: 0, licenseId: licenseA },
      { status: 1 },
      { status: '1', licenseId: licenseA },
      { status: 1, licenseId: licenseA, saleIds: [] },
    ]) {
      const res = await admin.post('/api/sales/update', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    expect((await member.post('/api/sales/update', { status: 1, licenseId: licenseA })).status).toBe(403);

    const chosen = await admin.post('/api/sales/update', { status: 1, licenseId: licenseA, saleIds: [ids.suzuki] });
    expect(((await chosen.json()).sales as { id: number }[]).map((s) => s.id)).toEqual([ids.suzuki]);
    const rest = await (await admin.post('/api/sales/update', { status: 1, licenseId: licenseA })).json();
    expect(rest.sales.map((s: { id: number }) => s.id)).toEqual([ids.tanaka]);
    expect(await saleIds(`?license_id=${licenseA}&status=1`)).toEqual([ids.tanaka, ids.suzuki].sort());
    // 出力待ち lists the sales that stand; the refunded one is under 返金済み (as the counters count it).
    expect(await saleIds(`?license_id=${licenseA}&status=0`)).toEqual([]);
    expect(await saleIds(`?license_id=${licenseA}&status=refunded`)).toEqual([ids.itoRefunded]);
    const events = await t.runtime.deps.orm.em
      .fork()
      .execute("select count(*)::int as n from outbox_events where name = 'SaleStatusChanged'");
    expect(events[0]?.n).toBe(2);
    const audit = await t.runtime.deps.orm.em
      .fork()
      .execute("select count(*)::int as n from audit_logs where action = 'sale.status'");
    expect(audit[0]?.n).toBe(2);
  });
});

describe('CSV export', () => {
  async function exportOf(body: Record<string, unknown>) {
    const res = await admin.post('/api/exports', body);
    expect(res.status).toBe(202);
    const { export: created } = await res.json();
    const done = await eventually(
      async () => {
        const state = (await (await admin.get(`/api/exports/${created.id}`)).json()).export;
        return state.state === 'done' ? state : null;
      },
      15_000,
      'the export',
    );
    const file = await admin.get(done.download_url);
    expect(file.status).toBe(200);
    if (!body.license_id) expect(file.headers.get('content-disposition')).toBe('attachment; filename="data.csv"');
    return { done, file, bytes: Buffer.from(await file.arrayBuffer()) };
  }

  it('writes status 0/1, not refunded, in the training-system columns: UTF-8 with BOM, CRLF', async () => {
    const { done, bytes } = await exportOf({});
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const text = bytes.subarray(3).toString('utf8');
    const lines = text.split('\r\n').filter(Boolean);
    expect(lines[0]).toBe('メールアドレス,姓,名,言語,グループ,所属,所属名,ライセンス名,購入日時');
    expect(lines).toHaveLength(4);
    expect(done.row_count).toBe(3);
    expect(lines).toContain(
      'tanaka@fire.example.jp,田中,一郎,日本語,〇〇研修グループ,消防・救急,〇〇消防局,BLS,2026/04/01 00:30:00',
    );
    expect(lines.some((l) => l.startsWith('suzuki@example.jp') && l.includes(',その他,（民間救急）〇〇社,'))).toBe(true);
    expect(text).not.toContain('ito@police.example.jp,伊藤,三郎,日本語,〇〇研修グループ,警察関係,〇〇警察署,BLS');
    expect(text.includes('\n') && !/[^\r]\n/.test(text)).toBe(true);
  });

  it('can write Shift_JIS for older Excel, and filters by licence', async () => {
    const { file, bytes } = await exportOf({ license_id: licenseB, encoding: 'shift_jis' });
    expect(file.headers.get('content-type')).toContain('Shift_JIS');
    // One licence: a name that says what the file is (RFC 6266, with an ASCII fallback).
    expect(file.headers.get('content-disposition')).toMatch(
      /^attachment; filename="training_\d{8}-\d{4}\.csv"; filename\*=UTF-8''%E7%A0%94%E4%BF%AE%E7%99%BB%E9%8C%B2_ACLS_\d{8}-\d{4}\.csv$/,
    );
    const text = iconv.decode(bytes, 'Shift_JIS');
    expect(text.split('\r\n')[0]).toBe('メールアドレス,姓,名,言語,グループ,所属,所属名,ライセンス名,購入日時');
    expect(text).toContain('ito@police.example.jp,伊藤,三郎,日本語,〇〇研修グループ,警察関係,〇〇警察署,ACLS');
    expect(text).not.toContain('tanaka');
  });

  it('builds once even if its job runs again, and is for administrators only', async () => {
    const { done } = await exportOf({});
    const again = {
      id: randomUUID(),
      name: 'ExportRequested' as const,
      occurredAt: new Date().toISOString(),
      payload: { exportId: done.id },
    };
    expect(await handlers.ExportRequested(t.runtime.jobContext(), again)).toBe('skipped');
    expect((await member.post('/api/exports', {})).status).toBe(403);
    expect((await member.get(`/api/exports/${done.id}/download`)).status).toBe(403);
    expect((await admin.get('/api/exports/not-a-uuid')).status).toBe(404);
    expect((await admin.post('/api/exports', { encoding: 'latin1' })).status).toBe(422);
  });
});

describe('登録済み', () => {
  it('tells the buyer when their sale becomes registered', async () => {
    const res = await admin.post('/api/sales/update', { status: 2, licenseId: licenseA, saleIds: [ids.tanaka] });
    const body = await res.json();
    expect(body.sales.map((s: { id: number; status: number }) => [s.id, s.status])).toEqual([[ids.tanaka, 2]]);
    const mail = await smtp.waitFor(smtp.to(tanaka.email));
    expect(mail.subject).toBe('【ライセンスストア】ライセンスの登録が完了しました');
    expect(mail.text).toContain('「BLS」を研修管理システムに登録しました。');
    // Moving to 処理中 sends nothing.
    expect(smtp.messages.filter(smtp.to(suzuki.email))).toHaveLength(0);
  });
});
