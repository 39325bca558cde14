import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { SaleStatus } from '../../src/modules/sales/index.ts';
import { aLicense, aMember, aSale } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

// Issue 24 item 9: the sales list shows and finds the member as they are now (as the CSV writes
// them), the snapshot only for members who are gone; status filters agree with their counters;
// reversed dates are refused; batches finished from the toolbar offer nothing more.
let t: TestRuntime;
let admin: TestClient;
let license: number;
const ids: Record<string, number> = {};
const users: Record<string, string> = {};

async function member(key: string, last: string, first: string, email: string) {
  const user = await aMember(t.runtime.deps.orm, { email, lastName: last, firstName: first });
  users[key] = user.id;
  return user.id;
}

const sale = (
  buyer: { last: string; first: string; email: string; userId?: string | null },
  options: { status?: SaleStatus; refunded?: boolean; paidAt?: string } = {},
) =>
  aSale(t.runtime.deps.orm, license, {
    userId: buyer.userId ?? null,
    lastName: buyer.last,
    firstName: buyer.first,
    email: buyer.email,
    affiliationName: '〇〇消防',
    paidAt: options.paidAt ?? '2026-04-02T03:00:00Z',
    refunded: options.refunded,
    status: options.status,
  });

beforeAll(async () => {
  t = await startTestRuntime({ mode: 'all' });
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'names-admin@example.jp', password: 'names-admin-123' });
  license = await aLicense(t.runtime.deps.orm, { name: 'BLS' });
  // Bought as 佐藤 花子, renamed to 山田 花子 since.
  const renamed = await member('renamed', '佐藤', '花子', 'hanako@example.jp');
  ids.renamed = await sale({ last: '佐藤', first: '花子', email: 'hanako@example.jp', userId: renamed });
  await t.runtime.deps.orm.em.fork().execute("update users set last_name = '山田', updated_at = now() where id = ?", [renamed]);
  // Registered under the 異体字 髙.
  const takahashi = await member('takahashi', '髙橋', '一郎', 'ichiro@example.jp');
  ids.takahashi = await sale({ last: '髙橋', first: '一郎', email: 'ichiro@example.jp', userId: takahashi });
  // A member who is gone: only the snapshot is left.
  ids.gone = await sale({ last: '鈴木', first: '次郎', email: 'jiro@example.jp', userId: null });
  const refunded = await member('refunded', '伊藤', '三郎', 'saburo@example.jp');
  ids.refunded = await sale({ last: '伊藤', first: '三郎', email: 'saburo@example.jp', userId: refunded }, { refunded: true });
  ids.inProgress = await sale(
    { last: '伊藤', first: '三郎', email: 'saburo@example.jp', userId: refunded },
    { status: SaleStatus.InProgress },
  );
  admin = new TestClient(t.app, '10.61.0.1');
  await admin.login('names-admin@example.jp', 'names-admin-123');
});
afterAll(async () => {
  await t?.stop();
});

type Row = { id: number; order_number: string; user: { last_name: string; first_name: string; email: string } };
const list = async (query: string) => (await (await admin.get(`/api/sales?${query}`)).json()) as { sales: Row[]; total: number };
const found = async (q: string) => (await list(`q=${encodeURIComponent(q)}`)).sales.map((s) => s.id).sort();

describe('the sales list and the member as they are now', () => {
  it('shows the current name, and the snapshot for a member who is gone', async () => {
    const { sales } = await list('');
    const byId = new Map(sales.map((s) => [s.id, s]));
    expect(byId.get(ids.renamed as number)?.user).toMatchObject({ last_name: '山田', first_name: '花子' });
    expect(byId.get(ids.gone as number)?.user).toMatchObject({ last_name: '鈴木', first_name: '次郎' });
    // The order detail keeps the name at purchase.
    const detail = await (await admin.get(`/api/sales/${ids.renamed}`)).json();
    expect(JSON.stringify(detail)).toContain('佐藤');
  });

  it('finds a renamed member by the new name (not the old one), any length, 異体字 folded', async () => {
    expect(await found('山田')).toEqual([ids.renamed]);
    expect(await found('山田花子')).toEqual([ids.renamed]);
    // Under three characters, anywhere in the name: 「田」 finds 山田.
    expect(await found('田')).toEqual([ids.renamed]);
    expect(await found('佐藤')).toEqual([]);
    // 高橋 finds 髙橋, and the reverse.
    expect(await found('高橋')).toEqual([ids.takahashi]);
    expect(await found('髙橋')).toEqual([ids.takahashi]);
    // Deleted members by their snapshot; e-mail and order numbers as before.
    expect(await found('鈴木')).toEqual([ids.gone]);
    expect(await found('hanako@')).toEqual([ids.renamed]);
    expect(await found('jiro@example')).toEqual([ids.gone]);
    const orderNumber = (await list('')).sales.find((s) => s.id === ids.takahashi)?.order_number as string;
    expect(await found(orderNumber.toLowerCase())).toEqual([ids.takahashi]);
  });

  it('counts and moves what it lists: a name search by status, counters and status moves agree', async () => {
    const counts = (await (await admin.get(`/api/sales/counts?q=${encodeURIComponent('山田')}`)).json()).counts;
    expect(counts).toMatchObject({ awaiting: 1, in_progress: 0, registered: 0, refunded: 0, export_awaiting: 1 });
    const moved = await (
      await admin.post('/api/sales/update', { status: 1, licenseId: license, q: '山田', expected_count: 1 })
    ).json();
    expect(moved.sales.map((s: { id: number }) => s.id)).toEqual([ids.renamed]);
    await admin.post('/api/sales/revert', { saleIds: [ids.renamed], reason: 'テストの戻し' });
  });
});

describe('status filters and their counters', () => {
  it('lists under 出力待ち exactly what its counter counts; refunded sales under 返金済み', async () => {
    const q = `q=${encodeURIComponent('伊藤')}`;
    const counts = (await (await admin.get(`/api/sales/counts?${q}`)).json()).counts;
    expect(counts).toMatchObject({ awaiting: 0, in_progress: 1, refunded: 1, export_awaiting: 0, export_in_progress: 1 });
    expect((await list(`${q}&status=0`)).total).toBe(counts.awaiting);
    expect((await list(`${q}&status=1`)).sales.map((s) => s.id)).toEqual([ids.inProgress]);
    expect((await list(`${q}&status=refunded`)).sales.map((s) => s.id)).toEqual([ids.refunded]);
    const all = (await (await admin.get('/api/sales/counts')).json()).counts;
    expect((await list('status=0')).total).toBe(all.awaiting);
  });

  it('refuses a paid-date range the wrong way round with a Japanese message on paid_to', async () => {
    for (const res of [
      await admin.get('/api/sales?paid_from=2026-04-10&paid_to=2026-04-01'),
      await admin.get('/api/sales/counts?paid_from=2026-04-10&paid_to=2026-04-01'),
      await admin.get('/api/exports/preflight?paid_from=2026-04-10&paid_to=2026-04-01'),
      await admin.post('/api/exports', { paid_from: '2026-04-10', paid_to: '2026-04-01' }),
      await admin.post('/api/sales/update', { status: 1, licenseId: license, paid_from: '2026-04-10', paid_to: '2026-04-01' }),
    ]) {
      expect(res.status).toBe(422);
      const body = await res.json();
      expect(body.errors.paid_to).toEqual(['購入日（まで）は購入日（から）と同じか、それより後の日付を指定してください。']);
    }
    expect((await admin.get('/api/sales?paid_from=2026-04-02&paid_to=2026-04-02')).status).toBe(200);
  });
});

describe('a batch finished from the toolbar', () => {
  it('is completed when its last 処理中 sale becomes 登録済み, and offers nothing more', async () => {
    const q = '山田';
    const created = await admin.post('/api/exports', { license_id: license, q, batch: true, expected_count: 1 });
    expect(created.status).toBe(202);
    const id = (await created.json()).export.id as string;
    await t.runtime.deps.orm.em.fork().execute("update exports set state = 'done' where id = ?", [id]);
    const open = (await (await admin.get('/api/exports')).json()).exports.find((e: { id: string }) => e.id === id);
    expect(open).toMatchObject({ completed_at: null, open_count: 1 });
    const moved = await admin.post('/api/sales/update', { status: 2, licenseId: license, saleIds: [ids.renamed] });
    expect(moved.status).toBe(200);
    const closed = (await (await admin.get('/api/exports')).json()).exports.find((e: { id: string }) => e.id === id);
    expect(closed.completed_at).not.toBeNull();
    expect(closed.completed_by).toBe('names-admin@example.jp');
    expect((await admin.post(`/api/exports/${id}/complete`, {})).status).toBe(409);
  });
});

describe('a buyer whose account is gone', () => {
  it('says whether the member left (退会) or an administrator deleted the account', async () => {
    const leaving = await member('leaving', '退会', '花子', 'leaving@example.jp');
    const removed = await member('removed', '削除', '太郎', 'removed@example.jp');
    const left = await sale({ last: '退会', first: '花子', email: 'leaving@example.jp', userId: leaving });
    const deleted = await sale({ last: '削除', first: '太郎', email: 'removed@example.jp', userId: removed });
    const self = new TestClient(t.app, '10.61.0.9');
    expect((await self.login('leaving@example.jp', 'member-pass-123')).status).toBe(200);
    expect((await self.post(`/api/users/${leaving}/withdrawal`, { password: 'member-pass-123' })).status).toBe(200);
    expect((await admin.request('DELETE', `/api/users/${removed}/force`)).status).toBe(200);
    const gone = async (id: number) =>
      (
        (await (await admin.get(`/api/sales?license_id=${license}&per_page=100`)).json()).sales as (Row & {
          id: number;
          user_id: string | null;
          buyer_gone: string | null;
        })[]
      ).find((s) => s.id === id);
    await vi.waitFor(async () => expect((await gone(left))?.user_id).toBeNull(), { timeout: 15_000 });
    await vi.waitFor(async () => expect((await gone(deleted))?.user_id).toBeNull(), { timeout: 15_000 });
    expect((await gone(left))?.buyer_gone).toBe('withdrew');
    expect((await gone(deleted))?.buyer_gone).toBe('deleted');
    // The purchase-time name stays for accounting.
    expect((await gone(left))?.user).toMatchObject({ last_name: '退会', first_name: '花子' });
  });
});
