import { createHash, randomUUID } from 'node:crypto';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import type { Em } from '../../src/db/orm.ts';
import type { Logger } from '../../src/lib/logger.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { markExportFailed, type SaleStatus } from '../../src/modules/sales/index.ts';
import type { FileStore } from '../../src/storage/file-store.ts';
import { handlers } from '../../workers/handlers.ts';
import { aLicense, aMember, aSale, cycle, manyMembers, manySales } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

// Web mode: no worker races the handlers this file runs itself.
let t: TestRuntime;
let admin: TestClient;
let seq = 0;

const sql = <T = Record<string, unknown>>(query: string, params: unknown[] = []) =>
  t.runtime.deps.orm.em.fork().execute<T[]>(query, params);

const license = (name: string) => aLicense(t.runtime.deps.orm, { name });

interface Buyer {
  last: string;
  first: string;
  email: string;
  affiliation?: number;
  name?: string;
  other?: string | null;
  userId?: string | null;
}

const sale = (licenseId: number, buyer: Buyer, options: { status?: SaleStatus; refunded?: boolean; paidAt?: string } = {}) =>
  aSale(t.runtime.deps.orm, licenseId, {
    userId: buyer.userId ?? null,
    lastName: buyer.last,
    firstName: buyer.first,
    email: buyer.email,
    affiliation: buyer.affiliation ?? 4,
    affiliationName: buyer.name ?? '〇〇消防局',
    affiliationOther: buyer.other ?? null,
    paidAt: options.paidAt ?? `2026-05-${String((++seq % 28) + 1).padStart(2, '0')}T03:00:00Z`,
    status: options.status,
    refunded: options.refunded,
  });

const member = async (lastName: string, firstName: string, email: string) =>
  (await aMember(t.runtime.deps.orm, { lastName, firstName, email, affiliation: 5, affiliationName: '〇〇病院' })).id;

/** The SaleStatusChanged events whose move holds sale `?`. */
const MOVES_OF_SALE = `outbox_events e join sale_status_move_sales m on m.move_id = (e.payload->>'moveId')::uuid
  where e.name = 'SaleStatusChanged' and m.sale_id = ?`;

const statuses = async (ids: number[]) =>
  (await sql<{ id: number; status: number }>('select id, status from sales where id in (?) order by id', [ids])).map(
    (r) => r.status,
  );

/** POST /api/exports, then the worker's handler, as the worker would run it. */
async function exportNow(body: Record<string, unknown>) {
  const res = await admin.post('/api/exports', body);
  const json = await res.json();
  if (res.status !== 202) throw new Error(`export refused: ${res.status} ${JSON.stringify(json)}`);
  const event = {
    id: randomUUID(),
    name: 'ExportRequested' as const,
    occurredAt: new Date().toISOString(),
    payload: { exportId: json.export.id },
  };
  await handlers.ExportRequested(t.runtime.jobContext(), event);
  const done = (await (await admin.get(`/api/exports/${json.export.id}`)).json()).export;
  const file = done.download_url ? await admin.get(done.download_url) : null;
  return { res, json, done, file, bytes: file ? Buffer.from(await file.arrayBuffer()) : Buffer.alloc(0) };
}

beforeAll(async () => {
  t = await startTestRuntime({ env: { EXPORT_GROUP_NAME: '〇〇研修グループ' } });
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'issue-admin@example.jp', password: 'issue-admin-123' });
  admin = new TestClient(t.app, '10.80.0.1');
  await admin.login('issue-admin@example.jp', 'issue-admin-123');
});
afterAll(async () => t?.stop());

describe('status moves do exactly what the screen says', () => {
  it('moves the selection only, or the whole search, and refuses a stale count with 409 and the actual count', async () => {
    const bls = await license('BLS-moves');
    const yamada = await sale(bls, { last: '山田', first: '太郎', email: 'yamada@example.jp' });
    const others = [
      await sale(bls, { last: '佐藤', first: '花子', email: 'sato@example.jp' }),
      await sale(bls, { last: '佐藤', first: '次郎', email: 'sato2@example.jp' }),
    ];
    const refunded = await sale(bls, { last: '佐藤', first: '返金', email: 'refund@example.jp' }, { refunded: true });

    // The selection: exactly the chosen sale, whatever else the licence has.
    const one = await admin.post('/api/sales/update', { status: 1, licenseId: bls, saleIds: [yamada], expected_count: 1 });
    expect(one.status).toBe(200);
    expect(await statuses([yamada, ...others])).toEqual([1, 0, 0]);

    // The search: the 2 佐藤 that are 出力待ち and not refunded; a stale count moves nothing.
    const stale = await admin.post('/api/sales/update', { status: 1, licenseId: bls, q: '佐藤', expected_count: 3 });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ count: 2, message: expect.stringContaining('3件から2件') });
    expect(await statuses(others)).toEqual([0, 0]);
    const counts = await (await admin.get(`/api/sales/counts?license_id=${bls}&q=${encodeURIComponent('佐藤')}`)).json();
    expect(counts.counts).toEqual({
      awaiting: 2,
      in_progress: 0,
      registered: 0,
      refunded: 1,
      export_awaiting: 2,
      export_in_progress: 0,
    });
    const all = await admin.post('/api/sales/update', { status: 1, licenseId: bls, q: '佐藤', expected_count: 2 });
    expect(((await all.json()).sales as { id: number }[]).map((s) => s.id)).toEqual(others);
    expect(await statuses([refunded])).toEqual([0]);

    // A selection with a sale that cannot move (refunded) is not what was confirmed.
    const mixed = await admin.post('/api/sales/update', {
      status: 2,
      licenseId: bls,
      saleIds: [yamada, refunded],
      expected_count: 2,
    });
    expect(mixed.status).toBe(409);
    expect((await mixed.json()).count).toBe(1);
    expect((await admin.post('/api/sales/update', { status: 1, licenseId: bls, saleIds: [yamada], q: 'x' })).status).toBe(422);
  });

  it('moves a double-submitted confirmation once', async () => {
    const acls = await license('ACLS-double');
    const ids = await Promise.all(
      [1, 2, 3].map((n) => sale(acls, { last: '同時', first: `${n}`, email: `twice${n}@example.jp` })),
    );
    const body = { status: 1, licenseId: acls, expected_count: 3 };
    const answers = await Promise.all([admin.post('/api/sales/update', body), admin.post('/api/sales/update', body)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await statuses(ids)).toEqual([1, 1, 1]);
    const events = await sql<{ n: number }>(`select count(*)::int as n from ${MOVES_OF_SALE}`, [ids[0]]);
    expect(events[0]?.n).toBe(1);
  });
});

describe('events about many sales', () => {
  it('name the move and its count, never the sales; registration mails go out in jobs of 500', async () => {
    const big = await license('BLS-bounded');
    await manySales(t.runtime.deps.orm, { to: 1050, licenseId: big, lastName: '大量', email: 'bulk{n}@example.jp' });
    for (const [status, count] of [
      [1, 1050],
      [2, 1050],
    ]) {
      const res = await admin.post('/api/sales/update', { status, licenseId: big, expected_count: count });
      expect(res.status).toBe(200);
    }
    const events = await sql<{ id: string; payload: Record<string, unknown>; bytes: number; moved: number }>(
      `select e.id, e.payload, octet_length(e.payload::text) as bytes,
         (select count(*)::int from sale_status_move_sales m where m.move_id = (e.payload->>'moveId')::uuid) as moved
       from outbox_events e where e.name = 'SaleStatusChanged' and (e.payload->>'count')::int = 1050 order by e.occurred_at`,
    );
    expect(events.map((e) => [e.payload.from, e.payload.to, e.moved])).toEqual([
      [0, 1, 1050],
      [1, 2, 1050],
    ]);
    // 1,050 sales: a 126 KiB event before; now a few hundred bytes whatever the count.
    for (const e of events) expect(e.bytes).toBeLessThan(300);
    expect(events[0]?.payload).not.toHaveProperty('saleIds');

    const toRegistered = events[1] as (typeof events)[number];
    const event = {
      id: toRegistered.id,
      name: 'SaleStatusChanged' as const,
      occurredAt: new Date().toISOString(),
      payload: toRegistered.payload as { moveId: string; count: number; from: number; to: number; actorId: string },
    };
    expect(await handlers.SaleStatusChanged(t.runtime.jobContext(), event)).toBe('done');
    // A job run twice plans its mails once.
    expect(await handlers.SaleStatusChanged(t.runtime.jobContext(), event)).toBe('skipped');
    const pages = await sql<{ payload: { moveId: string; fromSaleId: number }; bytes: number }>(
      `select payload, octet_length(payload::text) as bytes from outbox_events
       where name = 'RegistrationMailsDue' and payload->>'moveId' = ? order by (payload->>'fromSaleId')::int`,
      [event.payload.moveId],
    );
    expect(pages).toHaveLength(3);
    const [first] = await sql<{ id: number }>(
      "select min(id)::int as id from sales where license_id = ? and buyer_last_name = '大量'",
      [big],
    );
    expect(pages.map((p) => p.payload.fromSaleId)).toEqual([first?.id, (first?.id ?? 0) + 500, (first?.id ?? 0) + 1000]);

    // The last page: 50 mails, each once.
    const last = pages[2] as (typeof pages)[number];
    const page = {
      id: randomUUID(),
      name: 'RegistrationMailsDue' as const,
      occurredAt: new Date().toISOString(),
      payload: last.payload,
    };
    expect(await handlers.RegistrationMailsDue(t.runtime.jobContext(), page)).toBe('done');
    expect(await handlers.RegistrationMailsDue(t.runtime.jobContext(), page)).toBe('skipped');
    const mails = await sql<{ n: number }>(
      "select count(*)::int as n from mail_deliveries where template = 'license-registered' and key like ?",
      [`${event.payload.moveId}:registered:%`],
    );
    expect(mails[0]?.n).toBe(50);
  });

  it('still reads an event written before moves, naming its sales', async () => {
    const acls = await license('ACLS-legacy');
    const id = await sale(acls, { last: '旧式', first: '一', email: 'legacy@example.jp' }, { status: 2 });
    const event = {
      id: randomUUID(),
      name: 'SaleStatusChanged' as const,
      occurredAt: new Date().toISOString(),
      payload: { saleIds: [id], from: 1, to: 2, actorId: 'admin' },
    };
    expect(await handlers.SaleStatusChanged(t.runtime.jobContext(), event)).toBe('done');
    const mails = await sql<{ n: number }>('select count(*)::int as n from mail_deliveries where key = ?', [
      `${event.id}:registered:${id}`,
    ]);
    expect(mails[0]?.n).toBe(1);
  });
});

describe('差し戻し', () => {
  it('moves each sale one step back with a reason, audited; 出力待ち, refunded or unknown sales refuse the whole request', async () => {
    const pals = await license('PALS-revert');
    const registered = await sale(pals, { last: '戻', first: '一', email: 'back1@example.jp' }, { status: 2 });
    const inProgress = await sale(pals, { last: '戻', first: '二', email: 'back2@example.jp' }, { status: 1 });
    const waiting = await sale(pals, { last: '戻', first: '三', email: 'back3@example.jp' });
    const refunded = await sale(pals, { last: '戻', first: '四', email: 'back4@example.jp' }, { status: 1, refunded: true });

    expect((await admin.post('/api/sales/revert', { saleIds: [registered] })).status).toBe(422);
    expect((await admin.post('/api/sales/revert', { saleIds: [registered], reason: '   ' })).status).toBe(422);
    for (const bad of [
      [registered, waiting],
      [registered, refunded],
      [registered, 99_999_999],
    ]) {
      const res = await admin.post('/api/sales/revert', { saleIds: bad, reason: '誤操作' });
      expect(res.status).toBe(422);
      expect((await res.json()).errors.saleIds[0]).toContain('差し戻せない売上');
    }
    expect(await statuses([registered, inProgress])).toEqual([2, 1]);

    const res = await admin.post('/api/sales/revert', { saleIds: [registered, inProgress], reason: '登録先の誤り' });
    expect(res.status).toBe(200);
    expect(await statuses([registered, inProgress])).toEqual([1, 0]);
    const audit = await sql<{ after: { reason: string; status: number } }>(
      "select after from audit_logs where action = 'sale.revert' order by created_at",
    );
    expect(audit.map((a) => [a.after.status, a.after.reason])).toEqual([
      [1, '登録先の誤り'],
      [0, '登録先の誤り'],
    ]);
    const events = await sql<{ from: number; to: number }>(
      `select (payload->>'from')::int as from, (payload->>'to')::int as to from ${MOVES_OF_SALE}`,
      [inProgress],
    );
    expect(events).toEqual([{ from: 1, to: 0 }]);
  });
});

describe('export batches', () => {
  it('freeze the 出力待ち sales and move them to 処理中 at once; the file, history, re-download and completion follow', async () => {
    const bls = await license('BLS-batch');
    const a = await sale(bls, { last: '一括', first: 'A', email: 'batch-a@example.jp' });
    const b = await sale(bls, { last: '一括', first: 'B', email: 'batch-b@example.jp' });
    const busy = await sale(bls, { last: '一括', first: 'C', email: 'batch-c@example.jp' }, { status: 1 });

    const stale = await admin.post('/api/exports', { license_id: bls, batch: true, expected_count: 5 });
    expect(stale.status).toBe(409);
    expect(await statuses([a, b])).toEqual([0, 0]);

    const { res, json, done, file, bytes } = await exportNow({ license_id: bls, batch: true, expected_count: 2 });
    expect(res.status).toBe(202);
    expect(json.export).toMatchObject({ batch: true, total_rows: 2, state: 'queued', license_name: 'BLS-batch' });
    expect(await statuses([a, b, busy])).toEqual([1, 1, 1]);
    expect(done).toMatchObject({ state: 'done', row_count: 2, requested_by: 'issue-admin@example.jp' });
    expect(done.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(file?.headers.get('content-disposition')).toContain("filename*=UTF-8''");
    const lines = bytes.subarray(3).toString('utf8').split('\r\n').filter(Boolean);
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['batch-a@example.jp', 'batch-b@example.jp']);
    // The log names the licence, not its id.
    const logged = await (await admin.get(`/api/audit-logs?action=sale.export.batch&target_id=${done.id}`)).json();
    const filters = logged.audit_logs[0].changes.find((c: { field: string }) => c.field === 'filters');
    expect(filters.after).toContain('ライセンス: BLS-batch');
    expect(filters.after).not.toContain('ライセンスID');

    // Nothing left to freeze: the second batch is refused; the sales stay in their one batch.
    const again = await admin.post('/api/exports', { license_id: bls, batch: true });
    expect(again.status).toBe(422);
    const memberships = await sql<{ n: number }>('select count(*)::int as n from export_sales where sale_id in (?)', [[a, b]]);
    expect(memberships[0]?.n).toBe(2);

    // Byte-identical again, and every download is audited.
    const second = Buffer.from(await (await admin.get(done.download_url)).arrayBuffer());
    expect(second.equals(bytes)).toBe(true);
    const downloads = await sql<{ n: number }>(
      "select count(*)::int as n from audit_logs where action = 'sale.export.download' and target_id = ?",
      [done.id],
    );
    expect(downloads[0]?.n).toBe(2);

    const history = await (await admin.get('/api/exports?per_page=5')).json();
    expect(history.exports[0]).toMatchObject({ id: done.id, state: 'done', batch: true, sha256: done.sha256 });
    expect(history.group_name).toBe('〇〇研修グループ');

    // 差し戻し takes a sale out of its batch; completion moves the rest to 登録済み, once.
    await admin.post('/api/sales/revert', { saleIds: [b], reason: '受講取り消し' });
    const complete = await admin.post(`/api/exports/${done.id}/complete`);
    expect(complete.status).toBe(200);
    expect((await complete.json()).moved).toBe(1);
    expect(await statuses([a, b, busy])).toEqual([2, 0, 1]);
    expect((await admin.post(`/api/exports/${done.id}/complete`)).status).toBe(409);
  });

  it('never puts a sale in two open batches, even when two are asked for at once', async () => {
    const acls = await license('ACLS-race');
    const ids = await Promise.all(
      [1, 2, 3, 4].map((n) => sale(acls, { last: '競合', first: `${n}`, email: `race${n}@example.jp` })),
    );
    const answers = await Promise.all([
      admin.post('/api/exports', { license_id: acls, batch: true }),
      admin.post('/api/exports', { license_id: acls, batch: true }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([202, 422]);
    const rows = await sql<{ sale_id: number; n: number }>(
      'select sale_id, count(*)::int as n from export_sales where sale_id in (?) group by sale_id order by sale_id',
      [ids],
    );
    expect(rows).toEqual([...ids].sort((a, b) => a - b).map((id) => ({ sale_id: id, n: 1 })));
  });

  it('leaves a batch whose worker died re-runnable from its frozen set, never half-moved', async () => {
    const pals = await license('PALS-crash');
    const ids = await Promise.all(
      [1, 2].map((n) => sale(pals, { last: '再実行', first: `${n}`, email: `rerun${n}@example.jp` })),
    );
    const res = await admin.post('/api/exports', { license_id: pals, batch: true });
    const id = (await res.json()).export.id;
    expect(await statuses(ids)).toEqual([1, 1]);
    // The worker died while writing: the row says running, no file exists.
    await sql("update exports set state = 'running', row_count = 1 where id = ?", [id]);
    // A sale added afterwards is not part of the frozen batch.
    const late = await sale(pals, { last: '再実行', first: '後', email: 'rerun-late@example.jp' });
    const event = {
      id: randomUUID(),
      name: 'ExportRequested' as const,
      occurredAt: new Date().toISOString(),
      payload: { exportId: id },
    };
    expect(await handlers.ExportRequested(t.runtime.jobContext(), event)).toBe('done');
    const done = (await (await admin.get(`/api/exports/${id}`)).json()).export;
    expect(done).toMatchObject({ state: 'done', row_count: 2 });
    expect(await statuses([...ids, late])).toEqual([1, 1, 0]);
    expect(await handlers.ExportRequested(t.runtime.jobContext(), event)).toBe('skipped');
  });
});

describe('the CSV the training system needs', () => {
  it('is byte-exact: BOM, CRLF, quoting, formula cells neutralised, current details for members, the snapshot for deleted ones', async () => {
    const ecg = await license('ECG "基礎", 第2版');
    const currentId = await member('今井', '新', 'imai.new@example.jp');
    await sale(
      ecg,
      { last: '今井', first: '旧', email: 'imai.old@example.jp', userId: currentId },
      { paidAt: '2026-04-01T01:00:00Z' },
    );
    await sale(
      ecg,
      { last: '=1+2', first: '@SUM(A1)', email: '-evil@example.jp', affiliation: 6, name: '+社', other: '民間' },
      { paidAt: '2026-04-02T01:00:00Z' },
    );
    await sale(
      ecg,
      { last: '削除', first: '済', email: 'gone@example.jp', userId: randomUUID() },
      { paidAt: '2026-04-03T01:00:00Z' },
    );

    const { bytes } = await exportNow({ license_id: ecg });
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(bytes.subarray(3).toString('utf8')).toBe(
      [
        'メールアドレス,姓,名,言語,グループ,所属,所属名,ライセンス名,購入日時',
        'imai.new@example.jp,今井,新,日本語,〇〇研修グループ,医療機関,〇〇病院,"ECG ""基礎"", 第2版",2026/04/01 10:00:00',
        '\'-evil@example.jp,\'=1+2,\'@SUM(A1),日本語,〇〇研修グループ,その他,（民間）+社,"ECG ""基礎"", 第2版",2026/04/02 10:00:00',
        'gone@example.jp,削除,済,日本語,〇〇研修グループ,消防・救急,〇〇消防局,"ECG ""基礎"", 第2版",2026/04/03 10:00:00',
        '',
      ].join('\r\n'),
    );
  });

  it('writes CP932 for older Excel: JIS characters mapped, unmappable ones listed before (preflight, 422) or replaced with 〓 on request', async () => {
    const cpr = await license('CPR');
    const wave = await sale(cpr, { last: '波〜', first: '−‖—', email: 'wave@example.jp', name: '¢£¬' });
    const emoji = await sale(cpr, { last: '𠮷野', first: '花😀', email: 'emoji@example.jp' });

    const check = await (await admin.get(`/api/exports/preflight?license_id=${cpr}`)).json();
    // Each names the sale's 注文番号 too (the warning links to its order detail).
    const [numbered] = await t.runtime.deps.orm.em.fork().execute('select order_number from sales where id = ?', [emoji]);
    expect(check.problems).toEqual([
      { sale_id: emoji, order_number: numbered?.order_number ?? null, field: 'last_name', text: '𠮷野', characters: ['𠮷'] },
      { sale_id: emoji, order_number: numbered?.order_number ?? null, field: 'first_name', text: '花😀', characters: ['😀'] },
    ]);
    const refused = await admin.post('/api/exports', { license_id: cpr, encoding: 'shift_jis' });
    expect(refused.status).toBe(422);
    const body = await refused.json();
    expect(body.errors.encoding[0]).toContain('〓に置き換えて');
    expect(body.problems).toHaveLength(2);

    const { bytes, file } = await exportNow({ license_id: cpr, encoding: 'shift_jis', replace_unmappable: true });
    expect(file?.headers.get('content-type')).toContain('Shift_JIS');
    expect(bytes.includes(0x3f)).toBe(false); // never a silent "?"
    const text = iconv.decode(bytes, 'cp932');
    // A full-width minus starts a formula in some spreadsheets too (csv-stringify's escape_formulas).
    expect(text).toContain("wave@example.jp,波～,'－∥―,日本語,〇〇研修グループ,消防・救急,￠￡￢,CPR,");
    expect(text).toContain('emoji@example.jp,〓野,花〓,日本語');
    expect(wave).toBeGreaterThan(0);
  });

  it('holds every sale once and in order when the sales are spread unevenly and members bought many', async () => {
    const acls = await license('ACLS-many');
    const members = [
      await member('多田', '一', 'many-0@example.jp'),
      await member('多田', '二', 'many-1@example.jp'),
      await member('多田', '三', 'many-2@example.jp'),
    ];
    // Ten sales, a gap of 200,000 ids, then 30,000 more: the export reads the span in id ranges side
    // by side, and the crowded last range in several pages.
    // Every tenth sale by a member since deleted, every tenth (from the fifth) by a guest, the rest by the three.
    const buyers = Array.from({ length: 30 }, (_, k) => (k % 10 === 0 ? randomUUID() : k % 10 === 5 ? null : members[k % 3]));
    const insert = (from: number, to: number) =>
      manySales(t.runtime.deps.orm, {
        from,
        to,
        licenseId: acls,
        userId: cycle(buyers as (string | null)[]),
        lastName: '旧姓',
        email: 'snapshot{n}@example.jp',
        affiliationName: '旧署',
        stripeSessionId: 'cs_many_{n}',
        paidAt: { start: '2026-04-01T00:00:00Z', stepSeconds: 1 },
      });
    await insert(1, 10);
    await sql("select setval('sales_id_seq', nextval('sales_id_seq') + 200000)");
    await insert(11, 30_010);

    const { done, bytes } = await exportNow({ license_id: acls });
    expect(done).toMatchObject({ state: 'done', row_count: 30_010, total_rows: 30_010 });
    const lines = bytes.subarray(3).toString('utf8').split('\r\n');
    expect(lines).toHaveLength(30_012); // header, 30,010 records, the last CRLF
    const expected = (g: number) => {
      const gone = g % 10 === 0 || g % 10 === 5;
      const paid = new Date(Date.UTC(2026, 3, 1, 9, 0, g));
      const jst = `${paid.getUTCFullYear()}/${String(paid.getUTCMonth() + 1).padStart(2, '0')}/${String(paid.getUTCDate()).padStart(2, '0')} ${paid.toISOString().slice(11, 19)}`;
      return gone
        ? `snapshot${g}@example.jp,旧姓,${g},日本語,〇〇研修グループ,消防・救急,旧署,ACLS-many,${jst}`
        : `many-${g % 3}@example.jp,多田,${['一', '二', '三'][g % 3]},日本語,〇〇研修グループ,医療機関,〇〇病院,ACLS-many,${jst}`;
    };
    for (let g = 1; g <= 30_010; g++) {
      if (lines[g] !== expected(g)) expect(`line ${g}: ${lines[g]}`).toBe(`line ${g}: ${expected(g)}`);
    }
  });
});

describe('members whose ids share a hash', () => {
  it('each get their own details in the CSV (the export finds members by hashtext, then by id)', async () => {
    const acls = await license('ACLS-collide');
    // Two ids PostgreSQL's hashtext maps to one number (found by search; checked here, so a changed hash shows).
    const ids = ['member-41732', 'member-383466'];
    const [hashes] = await sql<{ same: boolean }>('select hashtext(?) = hashtext(?) as same', ids);
    expect(hashes?.same).toBe(true);
    for (const [i, id] of ids.entries()) {
      const person = { id, email: `collide-${i}@example.jp`, name: `衝突 ${i}`, lastName: '衝突', firstName: String(i) };
      await manyMembers(t.runtime.deps.orm, { to: 1, ...person, affiliation: 5, affiliationName: '〇〇病院' });
    }
    for (let n = 0; n < 6; n++) {
      await sale(acls, { last: '旧', first: '旧', email: `old-${n}@example.jp`, userId: ids[n % 2] });
    }
    const { done, bytes } = await exportNow({ license_id: acls });
    expect(done).toMatchObject({ state: 'done', row_count: 6 });
    const lines = bytes.subarray(3).toString('utf8').split('\r\n').slice(1, -1);
    expect(lines.map((line) => line.split(',').slice(0, 3).join(','))).toEqual(
      [0, 1, 0, 1, 0, 1].map((i) => `collide-${i}@example.jp,衝突,${i}`),
    );
  });
});

describe('search that finds people', () => {
  it('finds 姓, 名, 「姓 名」 and 「姓名」 in any width, and e-mail parts, in sales and users', async () => {
    const bls = await license('BLS-search');
    const userId = await member('山田', '太郎', 'yamada.search@example.jp');
    const found = await sale(bls, { last: '山田', first: '太郎', email: 'yamada.search@example.jp', userId });
    await sale(bls, { last: '山本', first: '太一', email: 'yamamoto.search@example.jp' });
    const ids = async (q: string) =>
      ((await (await admin.get(`/api/sales?license_id=${bls}&q=${encodeURIComponent(q)}`)).json()).sales as { id: number }[]).map(
        (s) => s.id,
      );
    for (const q of ['山田', '太郎', '山田 太郎', '山田　太郎', '山田太郎', ' 山田太郎 ', 'yamada.search', 'YAMADA.SEARCH']) {
      expect(await ids(q), q).toEqual([found]);
    }
    expect(await ids('山田花子')).toEqual([]);
    const users = async (name: string) =>
      ((await (await admin.get(`/api/users?name=${encodeURIComponent(name)}`)).json()).users as { id: string }[]).map(
        (u) => u.id,
      );
    for (const name of ['山田', '太郎', '山田 太郎', '山田　太郎', '山田太郎']) expect(await users(name), name).toEqual([userId]);
  });
});

describe('the sales list at scale', () => {
  it('counts exactly up to 10,000 and says 「以上」 past it', async () => {
    const big = await license('BLS-big');
    await manySales(t.runtime.deps.orm, {
      to: 10_001,
      licenseId: big,
      lastName: '大量',
      email: 'bulk{n}@example.jp',
      affiliation: null,
      affiliationName: '',
      paidAt: { stepSeconds: -1 },
    });
    const capped = await (await admin.get(`/api/sales?license_id=${big}&per_page=100&page=100`)).json();
    expect(capped).toMatchObject({ total: 10_000, total_capped: true, page: 100 });
    expect(capped.sales).toHaveLength(100);
    const exact = await (await admin.get(`/api/sales?license_id=${big}&q=${encodeURIComponent('大量 9999')}`)).json();
    expect(exact).toMatchObject({ total: 1, total_capped: false });
  });

  it('counts a short name search from its indexes: each person once, exact below 1,000 and 「以上」 past it', async () => {
    const few = await license('BLS-few');
    // 姓 「轟」 three times, 名 「轟」 twice — once on a sale whose 姓 is 「轟」 too: four sales.
    for (const [last, first] of [
      ['轟', '一'],
      ['轟', '二'],
      ['轟', '轟子'],
      ['北', '轟'],
    ]) {
      await aSale(t.runtime.deps.orm, few, {
        lastName: last,
        firstName: first,
        email: 'few@example.jp',
        affiliation: null,
        affiliationName: '',
      });
    }
    const exact = await (await admin.get(`/api/sales?q=${encodeURIComponent('轟')}`)).json();
    expect(exact).toMatchObject({ total: 4, total_capped: false });
    expect(exact.sales).toHaveLength(4);
    const many = await (await admin.get(`/api/sales?q=${encodeURIComponent('大量')}`)).json();
    expect(many).toMatchObject({ total: 1_000, total_capped: true });
  });
});

/** A logger that keeps its lines, to find the warnings and errors an operator acts on. */
function capturingLogger() {
  const lines: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  const make = (bindings: Record<string, unknown>): Logger => {
    const at =
      (level: string) =>
      (msg: string, fields: Record<string, unknown> = {}) =>
        void lines.push({ level, msg, fields: { ...bindings, ...fields } });
    return {
      debug: at('debug'),
      info: at('info'),
      warn: at('warn'),
      error: at('error'),
      child: (more) => make({ ...bindings, ...more }),
    };
  };
  return { log: make({}), lines };
}

describe('an export whose job keeps failing', () => {
  it('says it is retrying, with the last reason and time, and is cleared by the attempt that succeeds', async () => {
    const bls = await license('BLS-unwritable');
    await sale(bls, { last: '再試行', first: '一', email: 'retry1@example.jp' });
    const res = await admin.post('/api/exports', { license_id: bls, batch: false });
    const id = (await res.json()).export.id as string;
    const event = {
      id: randomUUID(),
      name: 'ExportRequested' as const,
      occurredAt: new Date().toISOString(),
      payload: { exportId: id },
    };
    const ctx = t.runtime.jobContext();
    // The store refuses every write, as a folder that became unwritable does.
    const unwritable: FileStore = {
      ...ctx.files,
      driver: ctx.files.driver,
      put: async (_key, body) => {
        if (!Buffer.isBuffer(body)) body.resume();
        throw Object.assign(new Error("EACCES: permission denied, open 'exports/x.csv'"), { code: 'EACCES' });
      },
      get: (key) => ctx.files.get(key),
      delete: (key) => ctx.files.delete(key),
      exists: (key) => ctx.files.exists(key),
      list: (prefix) => ctx.files.list(prefix),
      incomplete: (prefix) => ctx.files.incomplete(prefix),
      close: () => undefined,
    };
    const { log, lines } = capturingLogger();
    const exportFigures = async () => (await (await admin.get('/api/operations')).json()).operations.exports;
    const before = await exportFigures();
    for (let attempt = 1; attempt <= 3; attempt++) {
      // BullMQ retries what the handler throws.
      await expect(handlers.ExportRequested({ ...ctx, files: unwritable, log }, event)).rejects.toThrow('EACCES');
    }
    const shown = await (await admin.get(`/api/exports/${id}`)).json();
    expect(shown.export).toMatchObject({ state: 'queued', retrying: true, download_url: null, error: null });
    // In Japanese, without the server's path (the log keeps the error itself).
    expect(shown.export.last_error).toBe(
      'CSVを作成できませんでした。保存先に書き込む権限がありません。詳しくはサーバーのログをご確認ください。',
    );
    expect(Date.now() - Date.parse(shown.export.last_error_at)).toBeLessThan(60_000);
    const listed = (await (await admin.get('/api/exports')).json()).exports.find((e: { id: string }) => e.id === id);
    expect(listed).toMatchObject({ retrying: true, last_error: shown.export.last_error });
    // 運用状況 counts it once: retrying, no longer also waiting.
    const after = await exportFigures();
    expect(after).toMatchObject({ queued: before.queued - 1, retrying: before.retrying + 1 });
    // Each failed attempt is a warning naming the export.
    const warnings = lines.filter((l) => l.level === 'warn' && l.fields.export === id);
    expect(warnings).toHaveLength(3);
    expect(String(warnings[0]?.fields.error)).toContain('EACCES');
    // It is not over: 再実行 would race the retry.
    expect((await admin.post(`/api/exports/${id}/retry`, {})).status).toBe(409);

    // The folder is writable again: the next attempt makes the file and forgets the failure.
    expect(await handlers.ExportRequested(ctx, event)).toBe('done');
    const done = (await (await admin.get(`/api/exports/${id}`)).json()).export;
    expect(done).toMatchObject({ state: 'done', retrying: false, last_error: null, last_error_at: null, row_count: 1 });
  });

  it('given up, it is 失敗 with 再実行, keeping the last reason', async () => {
    const bls = await license('BLS-given-up');
    await sale(bls, { last: '断念', first: '一', email: 'gaveup1@example.jp' });
    const id = (await (await admin.post('/api/exports', { license_id: bls, batch: false })).json()).export.id as string;
    await sql("update exports set last_error = 'CSVを作成できませんでした: EACCES', last_error_at = now() where id = ?", [id]);
    const em = t.runtime.deps.orm.em.fork() as Em;
    await markExportFailed({ em, files: t.runtime.deps.files, afterCommit: (work) => work().then(() => undefined) }, id);
    const failed = (await (await admin.get(`/api/exports/${id}`)).json()).export;
    expect(failed).toMatchObject({ state: 'failed', retrying: false, last_error: 'CSVを作成できませんでした: EACCES' });
    expect(failed.error).toContain('再実行');
    const retried = await admin.post(`/api/exports/${id}/retry`, {});
    expect(retried.status).toBe(202);
    expect((await retried.json()).export).toMatchObject({ state: 'queued', retrying: false, last_error: null });
  });

  it('logs a finished export whose file is gone at error with its id, and answers a Japanese 404', async () => {
    const bls = await license('BLS-vanished');
    await sale(bls, { last: '消失', first: '一', email: 'vanished1@example.jp' });
    const { done } = await exportNow({ license_id: bls, batch: false });
    await t.runtime.deps.files.delete(`exports/${done.id}.csv`);
    const { log, lines } = capturingLogger();
    const watched = new TestClient(createApp({ ...t.runtime.deps, log }), '10.80.0.9');
    await watched.login('issue-admin@example.jp', 'issue-admin-123');
    const res = await watched.get(done.download_url);
    expect(res.status).toBe(404);
    expect((await res.json()).message).toBe('エクスポートのファイルが見つかりませんでした。もう一度作成してください。');
    expect(lines.filter((l) => l.level === 'error' && l.fields.export === done.id)).toHaveLength(1);
  });
});

describe('workers_alive: whether a worker will build the export', () => {
  it('is false without a fresh worker heartbeat, true with one', async () => {
    const key = `${t.prefix}:health:workers`;
    const { redis } = t.runtime.deps;
    await redis.del(key);
    const id = (await (await admin.post('/api/exports', { batch: false })).json()).export.id as string;
    expect((await (await admin.get('/api/exports')).json()).workers_alive).toBe(false);
    expect((await (await admin.get(`/api/exports/${id}`)).json()).workers_alive).toBe(false);
    await redis.hset(key, 'worker-a:1', JSON.stringify({ id: 'worker-a:1', database: 'ok', at: Date.now() }));
    expect((await (await admin.get('/api/exports')).json()).workers_alive).toBe(true);
    expect((await (await admin.get(`/api/exports/${id}`)).json()).workers_alive).toBe(true);
    // A heartbeat a minute old is a worker gone.
    await redis.hset(key, 'worker-a:1', JSON.stringify({ id: 'worker-a:1', database: 'ok', at: Date.now() - 60_000 }));
    expect((await (await admin.get('/api/exports')).json()).workers_alive).toBe(false);
    await redis.del(key);
  });
});
