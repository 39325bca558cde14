import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, jsonb } from '../../src/db/kysely.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { aLicense, aMember, aSale } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let t: TestRuntime;
let admin: TestClient;
let member: TestClient;
let adminId: string;
let memberId: string;

interface Entry {
  id: string;
  actor_id: string | null;
  actor_email: string | null;
  action: string;
  action_label: string;
  target_type: string;
  target_label: string;
  target_id: string;
  target_name: string;
  changes: { field: string; label: string; before: string | null; after: string | null }[];
  created_at: string;
}
interface Page {
  audit_logs: Entry[];
  total: number;
  page: number;
  per_page: number;
}

beforeAll(async () => {
  t = await startTestRuntime();
  adminId = (await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'Audit.Boss@example.jp', password: 'audit-boss-pass' })).user
    .id;
  const hanako = { email: 'hanako@police.example.jp', lastName: '山本', firstName: '花子', affiliation: 2 };
  memberId = (await aMember(t.runtime.deps.orm, { ...hanako, affiliationName: '〇〇警察署' })).id;
  admin = new TestClient(t.app, '10.60.0.1');
  expect((await admin.login('audit.boss@example.jp', 'audit-boss-pass')).status).toBe(200);
  member = new TestClient(t.app, '10.60.0.2');
  expect((await member.login('hanako@police.example.jp', 'member-pass-123')).status).toBe(200);
});
afterAll(async () => t?.stop());

/** Rows written straight into the table: a chosen time and actor, and actions nobody records yet. */
async function seed(
  rows: {
    actor: string;
    action: string;
    at: string;
    targetType?: string;
    targetId?: string;
    before?: unknown;
    after?: unknown;
  }[],
) {
  await db(t.runtime.deps.orm.em.fork())
    .insertInto('audit_logs')
    .values(
      rows.map((row) => ({
        id: randomUUID(),
        actor_id: randomUUID(),
        actor_email: row.actor,
        action: row.action,
        target_type: row.targetType ?? 'user',
        target_id: row.targetId ?? 'fixture',
        before: row.before === undefined ? null : jsonb(row.before),
        after: row.after === undefined ? null : jsonb(row.after),
        created_at: new Date(row.at).toISOString(),
      })),
    )
    .execute();
}

async function list(query: string): Promise<Page> {
  const res = await admin.get(`/api/audit-logs${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

describe('GET /api/audit-logs: who may read it', () => {
  it('answers 401 signed out and 403 to a member', async () => {
    expect((await new TestClient(t.app, '10.60.0.3').get('/api/audit-logs')).status).toBe(401);
    const res = await member.get('/api/audit-logs?target_type=user&target_id=x');
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ message: 'この操作を行う権限がありません。' });
    expect((await new TestClient(t.app, '10.60.0.3').get('/api/audit-logs/options')).status).toBe(401);
    expect((await member.get('/api/audit-logs/options')).status).toBe(403);
  });
});

describe('the changed fields of real changes made through the API', () => {
  it('shows a user edit as before → after of only the changed fields, for the user page’s query', async () => {
    const edit = await admin.put(`/api/users/${memberId}`, {
      email: 'hanako@police.example.jp',
      email_confirmation: 'hanako@police.example.jp',
      last_name: '山本',
      first_name: '春子',
      affiliations: 5,
      affiliation_name: '〇〇病院',
      affiliation_other: '',
      distribution: true,
    });
    expect(edit.status, await edit.clone().text()).toBe(200);

    const page = await list(`?target_type=user&target_id=${memberId}`);
    expect(page).toMatchObject({ total: 1, page: 1, per_page: 20 });
    const [entry] = page.audit_logs;
    expect(entry).toMatchObject({
      actor_id: adminId,
      actor_email: 'audit.boss@example.jp',
      action: 'user.update',
      action_label: 'ユーザー情報の変更',
      target_type: 'user',
      target_label: 'ユーザー',
      target_id: memberId,
    });
    expect(entry?.changes).toEqual([
      { field: 'first_name', label: '名', before: '花子', after: '春子' },
      { field: 'affiliations', label: '所属', before: '警察関係', after: '医療機関' },
      { field: 'affiliation_name', label: '所属名', before: '〇〇警察署', after: '〇〇病院' },
    ]);
    expect(Date.now() - Date.parse(entry?.created_at ?? '')).toBeLessThan(60_000);
    expect(entry?.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('shows a role change, and a forced password change without any secret', async () => {
    expect((await admin.put(`/api/users/${memberId}/role`, { role: 'admin' })).status).toBe(200);
    expect((await admin.put(`/api/users/${memberId}/role`, { role: 'user' })).status).toBe(200);
    const forced = await admin.put(`/api/users/${memberId}/password/force`, {
      new_password: 'forced-pass-123',
      new_password_confirmation: 'forced-pass-123',
    });
    expect(forced.status).toBe(200);

    const res = await admin.get(`/api/audit-logs?target_type=user&target_id=${memberId}`);
    const text = await res.clone().text();
    expect(text).not.toMatch(/forced-pass-123|argon2|password_hash|token/i);
    const entries = ((await res.json()) as Page).audit_logs;
    expect(entries.map((e) => [e.action, e.action_label])).toEqual([
      ['user.force_password', 'パスワードの強制変更'],
      ['user.role', '役割の変更'],
      ['user.role', '役割の変更'],
      ['user.update', 'ユーザー情報の変更'],
    ]);
    expect(entries[0]?.changes).toEqual([]);
    expect(entries[1]?.changes).toEqual([{ field: 'role', label: '役割', before: '管理者', after: '一般会員' }]);
    expect(entries[2]?.changes).toEqual([{ field: 'role', label: '役割', before: '一般会員', after: '管理者' }]);
  });

  it('shows a licence created, edited and deleted', async () => {
    const create = new FormData();
    for (const [k, v] of Object.entries({ name: 'BLS講習', description: '一次救命処置', price: '11000' })) create.append(k, v);
    const created = await admin.request('POST', '/api/licenses/create', { body: create });
    expect(created.status, await created.clone().text()).toBe(201);
    const license = (await created.json()).license as { id: number; updated_at: string };

    const edit = new FormData();
    for (const [k, v] of Object.entries({
      name: 'BLS講習（改訂版）',
      description: '一次救命処置',
      price: '12,000',
      published: 'false',
      updated_at: license.updated_at,
    })) {
      edit.append(k, v);
    }
    const edited = await admin.request('POST', `/api/licenses/${license.id}`, { body: edit });
    expect(edited.status, await edited.clone().text()).toBe(200);
    expect((await admin.request('DELETE', `/api/licenses/${license.id}`)).status).toBe(200);

    const [deleted, update, creation] = (await list(`?target_type=license&target_id=${license.id}`)).audit_logs;
    expect(update).toMatchObject({ action: 'license.update', action_label: 'ライセンスの編集', target_label: 'ライセンス' });
    expect(update?.changes).toEqual([
      { field: 'name', label: 'ライセンス名', before: 'BLS講習', after: 'BLS講習（改訂版）' },
      { field: 'price', label: '価格', before: '¥11,000', after: '¥12,000' },
      { field: 'published', label: '公開', before: '公開', after: '非公開' },
    ]);
    expect(creation).toMatchObject({ action: 'license.create', action_label: 'ライセンスの新規登録' });
    // A creation: what it was created with (nothing before; empty fields left out).
    expect(creation?.changes).toEqual([
      { field: 'name', label: 'ライセンス名', before: null, after: 'BLS講習' },
      { field: 'description', label: '説明', before: null, after: '一次救命処置' },
      { field: 'price', label: '価格', before: null, after: '¥11,000' },
      { field: 'published', label: '公開', before: null, after: '公開' },
    ]);
    // A deletion: what was deleted.
    expect(deleted).toMatchObject({ action: 'license.delete', action_label: 'ライセンスの削除' });
    expect(deleted?.changes.map((c) => [c.field, c.before, c.after])).toEqual([
      ['name', 'BLS講習（改訂版）', null],
      ['description', '一次救命処置', null],
      ['price', '¥12,000', null],
      ['published', '非公開', null],
    ]);
  });
});

describe('filters and paging', () => {
  it('filters by the actor’s e-mail (partial, any case), the action and the target', async () => {
    await seed([
      {
        actor: 'sato.filter@example.jp',
        action: 'user.delete',
        at: '2026-05-01T01:00:00Z',
        targetId: 'u-1',
        before: { email: 'gone@example.jp' },
      },
      {
        actor: 'sato.filter@example.jp',
        action: 'license.update',
        at: '2026-05-01T02:00:00Z',
        targetType: 'license',
        targetId: '7',
      },
      { actor: 'ito.filter@example.jp', action: 'user.delete', at: '2026-05-01T03:00:00Z', targetId: 'u-2' },
    ]);
    const actions = (p: Page) => p.audit_logs.map((e) => `${e.actor_email} ${e.action} ${e.target_type}:${e.target_id}`);
    expect(actions(await list('?actor=SATO.FIL'))).toEqual([
      'sato.filter@example.jp license.update license:7',
      'sato.filter@example.jp user.delete user:u-1',
    ]);
    expect(actions(await list('?actor=filter&action=user.delete'))).toEqual([
      'ito.filter@example.jp user.delete user:u-2',
      'sato.filter@example.jp user.delete user:u-1',
    ]);
    expect(actions(await list('?target_type=license&target_id=7'))).toEqual(['sato.filter@example.jp license.update license:7']);
    expect(actions(await list('?target_type=user&target_id=u-2'))).toEqual(['ito.filter@example.jp user.delete user:u-2']);
    // LIKE wildcards are text, not patterns; empty filters are no filter.
    expect((await list('?actor=%25')).total).toBe(0);
    expect((await list('?actor=_')).total).toBe(0);
    expect((await list('?actor=filter&action=&target_type=&target_id=&from=&to=')).total).toBe(3);
    expect((await list(`?actor=${encodeURIComponent(' ito.filter ')}`)).total).toBe(1);
  });

  it('takes from/to as Japan days, both ends included', async () => {
    await seed([
      { actor: 'clock@example.jp', action: 'user.update', at: '2026-03-09T14:59:59.999Z' }, // 03-09 23:59:59 JST
      { actor: 'clock@example.jp', action: 'user.update', at: '2026-03-09T15:00:00.000Z' }, // 03-10 00:00 JST
      { actor: 'clock@example.jp', action: 'user.update', at: '2026-03-10T14:59:59.999Z' }, // 03-10 23:59:59 JST
      { actor: 'clock@example.jp', action: 'user.update', at: '2026-03-10T15:00:00.000Z' }, // 03-11 00:00 JST
    ]);
    const times = async (query: string) => (await list(`?actor=clock@&${query}`)).audit_logs.map((e) => e.created_at);
    expect(await times('from=2026-03-10&to=2026-03-10')).toEqual(['2026-03-10T14:59:59.999Z', '2026-03-09T15:00:00.000Z']);
    expect(await times('from=2026-03-10')).toEqual([
      '2026-03-10T15:00:00.000Z',
      '2026-03-10T14:59:59.999Z',
      '2026-03-09T15:00:00.000Z',
    ]);
    expect(await times('to=2026-03-09')).toEqual(['2026-03-09T14:59:59.999Z']);
    expect(await times('from=2026-03-11&to=2026-03-11')).toEqual(['2026-03-10T15:00:00.000Z']);
    expect(await times('from=2026-03-12')).toEqual([]);
  });

  it('pages newest first, 20 by default and at most 100', async () => {
    const base = Date.parse('2026-01-01T00:00:00Z');
    await seed(
      Array.from({ length: 25 }, (_, i) => ({
        actor: 'pager@example.jp',
        action: 'license.update',
        targetType: 'license',
        targetId: String(i + 1),
        at: new Date(base + i * 60_000).toISOString(),
      })),
    );
    const first = await list('?actor=pager@');
    expect(first).toMatchObject({ total: 25, page: 1, per_page: 20 });
    expect(first.audit_logs).toHaveLength(20);
    expect(first.audit_logs[0]?.target_id).toBe('25');
    const third = await list('?actor=pager@&per_page=10&page=3');
    expect(third).toMatchObject({ total: 25, page: 3, per_page: 10 });
    expect(third.audit_logs.map((e) => e.target_id)).toEqual(['5', '4', '3', '2', '1']);
    expect((await list('?actor=pager@&per_page=10&page=4')).audit_logs).toEqual([]);
    expect((await list('?actor=pager@&per_page=100')).audit_logs).toHaveLength(25);
  });
});

describe('labels', () => {
  it('names actions and fields nobody has labelled yet sensibly, and never shows secrets', async () => {
    await seed([
      {
        actor: 'later@example.jp',
        action: 'payment.replay',
        targetType: 'payment_event',
        targetId: 'evt_1',
        at: '2026-02-01T00:00:00Z',
        before: { state: 'failed', outcome: null, error: 'boom' },
      },
      {
        actor: 'later@example.jp',
        action: 'reconciliation.run',
        targetType: 'reconciliation',
        targetId: 'run-1',
        at: '2026-02-01T00:00:30Z',
        after: { days: 3 },
      },
      { actor: 'later@example.jp', action: 'user.withdraw', at: '2026-02-01T00:00:45Z' },
      {
        actor: 'later@example.jp',
        action: 'sale.receipt.reissue',
        targetType: 'sale',
        targetId: '42',
        at: '2026-02-01T00:00:50Z',
        before: { issue_count: 1 },
        after: { issue_count: 2, receipt_number: 'R-42', addressee: '〇〇消防本部' },
      },
      {
        actor: 'later@example.jp',
        action: 'user.lock',
        at: '2026-02-01T00:01:00Z',
        before: { locked: false },
        after: { locked: true },
      },
      {
        actor: 'later@example.jp',
        action: 'gadget.frobnicate',
        targetType: 'gadget',
        targetId: 'g1',
        at: '2026-02-01T00:02:00Z',
        before: { colour: 'red', password_hash: 'h-before', api_token: 't-before' },
        after: { colour: 'blue', password_hash: 'h-after', api_token: 't-after', reset_token: 'r' },
      },
    ]);
    const res = await admin.get('/api/audit-logs?actor=later@');
    const text = await res.clone().text();
    expect(text).not.toMatch(/h-before|h-after|t-before|t-after|password_hash|api_token|reset_token/);
    const [gadget, lock, receipt, withdraw, run, replay] = ((await res.json()) as Page).audit_logs;
    expect(receipt).toMatchObject({
      action_label: '領収書の再発行',
      target_label: '売上',
      changes: [
        { field: 'issue_count', label: '発行回数', before: '1', after: '2' },
        { field: 'receipt_number', label: '領収書番号', before: null, after: 'R-42' },
        { field: 'addressee', label: '宛名', before: null, after: '〇〇消防本部' },
      ],
    });
    expect(withdraw).toMatchObject({ action_label: '退会', target_label: 'ユーザー', changes: [] });
    expect(replay).toMatchObject({
      action_label: '決済イベントの再処理',
      target_label: '決済イベント',
      changes: [
        { field: 'state', label: '処理状態', before: '失敗', after: null },
        { field: 'error', label: 'エラー', before: 'boom', after: null },
      ],
    });
    expect(run).toMatchObject({
      action_label: '決済の照合',
      target_label: '決済の照合',
      changes: [{ field: 'days', label: '照合した期間', before: null, after: '3日分' }],
    });
    expect(lock).toMatchObject({
      action_label: 'ユーザーの操作（user.lock）',
      changes: [{ field: 'locked', label: 'locked', before: 'いいえ', after: 'はい' }],
    });
    expect(gadget).toMatchObject({
      action_label: 'gadget.frobnicate',
      target_label: 'gadget',
      changes: [{ field: 'colour', label: 'colour', before: 'red', after: 'blue' }],
    });
  });
});

describe('GET /api/audit-logs/options', () => {
  it('offers the actions and record types the log holds, named ones first in their order, with Japanese names', async () => {
    const res = await admin.get('/api/audit-logs/options');
    expect(res.status).toBe(200);
    const options = (await res.json()) as {
      actions: { action: string; label: string }[];
      target_types: { target_type: string; label: string }[];
    };
    expect(options.actions).toEqual([
      { action: 'user.update', label: 'ユーザー情報の変更' },
      { action: 'user.force_password', label: 'パスワードの強制変更' },
      { action: 'user.delete', label: 'ユーザーの削除' },
      { action: 'user.withdraw', label: '退会' },
      { action: 'user.role', label: '役割の変更' },
      // The administrators' own sign-ins (this file's administrators signed in).
      { action: 'admin.sign_in', label: '管理者のログイン' },
      { action: 'license.create', label: 'ライセンスの新規登録' },
      { action: 'license.update', label: 'ライセンスの編集' },
      { action: 'license.delete', label: 'ライセンスの削除' },
      { action: 'sale.receipt.reissue', label: '領収書の再発行' },
      { action: 'payment.replay', label: '決済イベントの再処理' },
      { action: 'reconciliation.run', label: '決済の照合' },
      { action: 'gadget.frobnicate', label: 'gadget.frobnicate' },
      { action: 'user.lock', label: 'ユーザーの操作（user.lock）' },
    ]);
    expect(options.target_types).toEqual([
      { target_type: 'user', label: 'ユーザー' },
      { target_type: 'license', label: 'ライセンス' },
      { target_type: 'sale', label: '売上' },
      { target_type: 'payment_event', label: '決済イベント' },
      { target_type: 'reconciliation', label: '決済の照合' },
      { target_type: 'gadget', label: 'gadget' },
    ]);
  });
});

describe('bad filters', () => {
  it('answers 422 in the Japanese shape', async () => {
    const cases: [string, string][] = [
      ['from=2026-02-30', 'from'],
      ['to=2026-13-01', 'to'],
      ['from=yesterday', 'from'],
      ['from=2026-03-11&to=2026-03-10', 'to'],
      ['action=user.update%3Bdrop', 'action'],
      ['action=USER.UPDATE', 'action'],
      ['target_type=User', 'target_type'],
      [`target_id=${'x'.repeat(65)}`, 'target_id'],
      [`actor=${'a'.repeat(255)}`, 'actor'],
      ['actor=%00', 'actor'],
      ['page=0', 'page'],
      ['page=abc', 'page'],
      ['per_page=101', 'per_page'],
      ['per_page=0', 'per_page'],
    ];
    for (const [query, field] of cases) {
      const res = await admin.get(`/api/audit-logs?${query}`);
      expect(res.status, query).toBe(422);
      const body = await res.json();
      expect(body.message, query).toBe('不正な値が入力されました。');
      expect(Object.keys(body.errors), query).toEqual([field]);
      expect(body.errors[field][0], query).toMatch(/[ぁ-んァ-ン一-龥]/);
    }
  });
});

describe('a status move: how many sales moved, and a link that finds them all', () => {
  async function sales(n: number): Promise<{ licenseId: number; ids: number[] }> {
    const orm = t.runtime.deps.orm;
    const licenseId = await aLicense(orm, { name: 'ICLS講習' });
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      const paidAt = new Date(Date.now() - i * 60_000);
      const sale = { lastName: '移動', firstName: `${i}`, email: `moved${i}@example.jp`, affiliationName: '〇〇消防', paidAt };
      ids.push(await aSale(orm, licenseId, sale));
    }
    return { licenseId, ids };
  }

  it('shows the count and the first ids, not the ids as a change, and the sales list finds exactly those sales', async () => {
    const { licenseId, ids } = await sales(3);
    const moved = ids.slice(0, 2);
    const res = await admin.post('/api/sales/update', { status: 1, licenseId, saleIds: moved, expected_count: 2 });
    expect(res.status, await res.clone().text()).toBe(200);
    const [entry] = (await list('?action=sale.status')).audit_logs as (Entry & { sales: unknown })[];
    expect(entry).toMatchObject({
      action_label: '発行状態の更新',
      target_type: 'license',
      target_id: String(licenseId),
      sales: { count: 2, first_ids: [...moved].sort((a, b) => a - b), more: false },
    });
    expect(entry?.changes).toEqual([{ field: 'status', label: '状態', before: '出力待ち', after: '処理中' }]);

    const listed = await admin.get(`/api/sales?audit_id=${entry?.id}`);
    expect(listed.status).toBe(200);
    const page = await listed.json();
    expect(page.total).toBe(2);
    expect(page.sales.map((s: { id: number }) => s.id).sort()).toEqual([...moved].sort());
    const counts = await (await admin.get(`/api/sales/counts?audit_id=${entry?.id}&license_id=${licenseId}`)).json();
    expect(counts.counts).toEqual({
      awaiting: 0,
      in_progress: 2,
      registered: 0,
      refunded: 0,
      export_awaiting: 0,
      export_in_progress: 2,
    });

    // An entry without sales finds none; one that does not exist is a Japanese 404; a malformed id a 422.
    const [other] = (await list('?action=user.role')).audit_logs;
    if (other) expect((await (await admin.get(`/api/sales?audit_id=${other.id}`)).json()).total).toBe(0);
    const missing = await admin.get(`/api/sales?audit_id=${randomUUID()}`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).message).toBe('この操作履歴は見つかりませんでした。');
    for (const bad of ['abc', '1%3Bdrop', `${randomUUID()}x`]) {
      for (const path of ['/api/sales', '/api/sales/counts']) {
        const refused = await admin.get(`${path}?audit_id=${bad}`);
        expect(refused.status, `${path} ${bad}`).toBe(422);
        expect((await refused.json()).errors.audit_id[0]).toBe('操作履歴の指定が正しくありません。');
      }
    }
  });

  it('keeps a move of 20,000 sales small: the count, the first 10 and a link, never the 20,000 ids', async () => {
    const { ids } = await sales(2);
    const saleIds = [...ids, ...Array.from({ length: 19_998 }, (_, i) => 900_000_000 + i)];
    await seed([
      {
        actor: 'audit.boss@example.jp',
        action: 'sale.export.complete',
        targetType: 'export',
        targetId: randomUUID(),
        at: new Date().toISOString(),
        before: { status: 1, sale_ids: saleIds },
        after: { status: 2, sale_ids: saleIds },
      },
    ]);
    const res = await admin.get('/api/audit-logs?action=sale.export.complete');
    const text = await res.text();
    expect(text.length).toBeLessThan(5_000);
    const [entry] = JSON.parse(text).audit_logs;
    expect(entry.sales).toMatchObject({ count: 20_000, first_ids: saleIds.slice(0, 10), more: true });
    expect(entry.sales.first_names).toHaveLength(10);
    expect(entry.changes).toEqual([{ field: 'status', label: '状態', before: '処理中', after: '登録済み' }]);
    // The link finds every one of them that exists, page by page.
    const page = await (await admin.get(`/api/sales?audit_id=${entry.id}&per_page=1`)).json();
    expect(page).toMatchObject({ total: 2, per_page: 1 });
    expect(ids).toContain(page.sales[0].id);
  });

  it('records the sales a batch export moved', async () => {
    const { licenseId, ids } = await sales(2);
    const res = await admin.post('/api/exports', { license_id: licenseId, batch: true, expected_count: 2 });
    expect(res.status, await res.clone().text()).toBe(202);
    const [entry] = (await list('?action=sale.export.batch')).audit_logs as (Entry & { sales: unknown })[];
    expect(entry?.sales).toMatchObject({ count: 2, first_ids: [...ids].sort((a, b) => a - b), more: false });
    // Listed by 注文番号, not by their internal ids.
    expect((entry?.sales as { first_names?: string[] } | undefined)?.first_names).toEqual([
      expect.stringMatching(/^注文番号 LS/),
      expect.stringMatching(/^注文番号 LS/),
    ]);
    expect(entry?.changes.map((c) => c.field)).not.toContain('sale_ids');
  });
});

describe('a resent mail', () => {
  it('reads 送信失敗 → 送信中, 試行回数 and 宛先による拒否 in Japanese (not failed→sending, attempts, permanent); a sale’s 状態 keeps its own words', async () => {
    await seed([
      {
        actor: 'resender@example.jp',
        action: 'mail.resend',
        targetType: 'mail',
        targetId: 'm-1',
        at: '2026-03-01T00:00:00Z',
        before: { status: 'failed', permanent: true, error: "Can't send mail - all recipients were rejected", attempts: 3 },
        after: { status: 'sending' },
      },
      {
        actor: 'resender@example.jp',
        action: 'sale.status',
        targetType: 'sale',
        targetId: '7',
        at: '2026-03-01T00:01:00Z',
        before: { status: 1 },
        after: { status: 2 },
      },
    ]);
    const [sale, mail] = (await list('?actor=resender@')).audit_logs;
    expect(mail).toMatchObject({ action_label: 'メールの再送信', target_label: 'メール' });
    const shown = mail?.changes.map((c) => `${c.label}: ${c.before ?? ''}→${c.after ?? ''}`);
    expect(shown).toEqual(
      expect.arrayContaining([
        '送信状態: 送信失敗→送信中',
        '試行回数: 3回→',
        '宛先による拒否: はい（自動では再送しない）→',
        "メールサーバーの応答（原文）: Can't send mail - all recipients were rejected→",
      ]),
    );
    expect(shown?.filter((line) => !line.startsWith('メールサーバーの応答')).join('\n')).not.toMatch(
      /failed|sending|attempts|permanent/,
    );
    expect(sale?.changes.map((c) => c.label)).toEqual(['状態']);
    expect(`${sale?.changes[0]?.before}${sale?.changes[0]?.after}`).not.toMatch(/送信|\d/);
  });
});

describe('the target column', () => {
  it('names each record as a person knows it, never by a bare internal id', async () => {
    const orm = t.runtime.deps.orm;
    const licenseId = await aLicense(orm, { name: 'PALS講習' });
    const saleId = await aSale(orm, licenseId, { orderNumber: '20260401-9001' });
    const gone = randomUUID();
    const at = '2026-04-01T00:00:00Z';
    const named = (targetType: string, targetId: string, extra: { action?: string; before?: unknown } = {}) => ({
      actor: 'namer@example.jp',
      action: extra.action ?? `${targetType}.update`,
      at,
      targetType,
      targetId,
      before: extra.before,
    });
    await seed([
      named('user', memberId),
      named('user', 'csv', { action: 'user.export' }),
      named('user', gone),
      named('user', randomUUID(), {
        action: 'user.delete',
        before: { last_name: '木村', first_name: '拓', email: 'kimura@example.jp' },
      }),
      named('sale', String(saleId)),
      named('sales', `${saleId}…(3)`, { action: 'sale.revert' }),
      named('license', String(licenseId)),
      named('license', '999999', { action: 'license.delete', before: { name: '廃止した講習' } }),
      named('export', randomUUID()),
      named('sales_summary', '2026-03-01〜2026-03-31', { action: 'sale.summary.download' }),
    ]);
    const names = Object.fromEntries(
      (await list('?actor=namer@&per_page=50')).audit_logs.map((e) => [`${e.target_type}:${e.target_id}`, e.target_name]),
    );
    expect(names[`user:${memberId}`]).toMatch(/^山本 (花子|春子)（hanako@police\.example\.jp）$/);
    expect(names['user:csv']).toBe('会員の一覧（CSV）');
    expect(names[`user:${gone}`]).toBe('ユーザー（記録が見つかりません）');
    expect(Object.values(names)).toContain('木村 拓（kimura@example.jp）');
    expect(names[`sale:${saleId}`]).toBe('注文番号 20260401-9001');
    expect(names[`sales:${saleId}…(3)`]).toBe('注文番号 20260401-9001 ほか2件');
    expect(names[`license:${licenseId}`]).toBe('PALS講習');
    expect(names['license:999999']).toBe('廃止した講習');
    expect(names['sales_summary:2026-03-01〜2026-03-31']).toBe('2026-03-01〜2026-03-31');
    for (const name of Object.values(names)) expect(name).not.toMatch(/^[0-9a-f-]{36}$|^\d+$/);
  });
});
