import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aLicense, aMember, anAdmin, aSale } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { eventually } from '../support/wait.ts';

let t: TestRuntime;
let admin: TestClient;
let member: TestClient;
let adminEmail: string;
const ids: number[] = [];

const db = () => t.runtime.deps.orm.em.fork();

/** The member's catalogue (公開 only, in display order), as the SPA asks for it. */
const catalogue = async () =>
  ((await (await member.get('/api/licenses?page=1&per_page=100')).json()).licenses as { id: number }[])
    .map((l) => l.id)
    .filter((id) => ids.includes(id));
const adminOrder = async () =>
  ((await (await admin.get('/api/licenses?per_page=100&sort=position')).json()).licenses as { id: number }[])
    .map((l) => l.id)
    .filter((id) => ids.includes(id));

const auditOf = (action: string, targetId: number) =>
  db().execute<{ actor_email: string; before: { position?: number }; after: { position?: number } }[]>(
    'select actor_email, before, after from audit_logs where action = ? and target_id = ? order by created_at',
    [action, String(targetId)],
  );

beforeAll(async () => {
  t = await startTestRuntime();
  const orm = t.runtime.deps.orm;
  for (const name of ['一番目', '二番目', '三番目', '四番目']) ids.push(await aLicense(orm, { name }));
  const anAdministrator = await anAdmin(orm);
  adminEmail = anAdministrator.email;
  admin = new TestClient(t.app, '10.71.0.1');
  expect((await admin.login(anAdministrator.email, anAdministrator.password)).status).toBe(200);
  const aMemberAccount = await aMember(orm);
  member = new TestClient(t.app, '10.71.0.2');
  expect((await member.login(aMemberAccount.email, aMemberAccount.password)).status).toBe(200);
  // The caches of decision 0021 are in play: the feed must be live for the catalogue to be cached at all.
  await eventually(async () => t.runtime.deps.changes?.live === true, 5_000, 'a live change feed');
}, 60_000);
afterAll(async () => t?.stop());

describe('display order', () => {
  it('starts in the order the licences were made, and the catalogue follows a move at once (its cache refreshed)', async () => {
    const [a, b, c, d] = ids as [number, number, number, number];
    expect(await catalogue()).toEqual([a, b, c, d]);
    // Twice: the second answer may come from the cache.
    expect(await catalogue()).toEqual([a, b, c, d]);

    const up = await admin.post(`/api/licenses/${c}/move`, { direction: 'up' });
    expect(up.status, await up.clone().text()).toBe(200);
    expect((await up.json()).message).toBe('表示順を1つ上げました。');
    expect(await catalogue()).toEqual([a, c, b, d]);
    expect(await adminOrder()).toEqual([a, c, b, d]);

    const down = await admin.post(`/api/licenses/${a}/move`, { direction: 'down' });
    expect(down.status).toBe(200);
    expect(await catalogue()).toEqual([c, a, b, d]);

    // Each licence whose place changed is audited with its place before and after.
    expect(await auditOf('license.reorder', c)).toEqual([
      { actor_email: adminEmail, before: { position: 3 }, after: { position: 2 } },
      { actor_email: adminEmail, before: { position: 2 }, after: { position: 1 } },
    ]);
    expect((await auditOf('license.reorder', d)).length).toBe(0);
  });

  it('PUT /api/licenses/order puts the given ids in the places they hold, in the order given', async () => {
    const [a, b, c, d] = ids as [number, number, number, number];
    const whole = await admin.put('/api/licenses/order', { ids: [d, c, b, a] });
    expect(whole.status, await whole.clone().text()).toBe(200);
    expect(await catalogue()).toEqual([d, c, b, a]);
    // Two ids swap places; the others stay.
    expect((await admin.put('/api/licenses/order', { ids: [a, c] })).status).toBe(200);
    expect(await catalogue()).toEqual([d, a, b, c]);
    // The audit screen names the change in Japanese.
    const logs = await (await admin.get(`/api/audit-logs?action=license.reorder&target_id=${a}`)).json();
    expect(logs.audit_logs[0]).toMatchObject({
      action_label: 'ライセンスの表示順の変更',
      changes: [{ label: '表示順', before: '4番目', after: '2番目' }],
    });
    // The order is not an edit: an open edit form (its updated_at) is not made stale by it.
    const [row] = await db().execute<{ same: boolean }[]>('select updated_at = created_at as same from licenses where id = ?', [
      a,
    ]);
    expect(row?.same).toBe(true);
  });

  it('a licence created later comes last; the whole order is refused when bad (422), for members (403)', async () => {
    const created = await aLicense(t.runtime.deps.orm, { name: '五番目' });
    ids.push(created);
    // Inserted straight into the table: the cached catalogue hears of it by its change notice.
    await eventually(async () => (await catalogue()).at(-1) === created, 3_000, 'the new licence last');
    const top = ids[3] as number;
    for (const [body, field] of [
      [{ ids: [] }, 'ids'],
      [{ ids: [top, top] }, 'ids'],
      [{ ids: [999_999] }, 'ids'],
      [{ ids: ['x'] }, 'ids'],
      [{}, 'ids'],
    ] as const) {
      const res = await admin.put('/api/licenses/order', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      const json = await res.json();
      expect(json.message).toBe('不正な値が入力されました。');
      expect(JSON.stringify(json.errors), JSON.stringify(body)).toContain(field);
      expect(Object.values(json.errors).flat()[0]).toMatch(/[ぁ-んァ-ヶ一-龠]/);
    }
    const first = (await catalogue())[0] as number;
    const edge = await admin.post(`/api/licenses/${first}/move`, { direction: 'up' });
    expect(edge.status).toBe(422);
    expect((await edge.json()).errors.direction).toEqual(['すでに先頭です。']);
    expect((await admin.post(`/api/licenses/${first}/move`, { direction: 'sideways' })).status).toBe(422);
    expect((await admin.post('/api/licenses/999999/move', { direction: 'up' })).status).toBe(404);
    expect((await member.put('/api/licenses/order', { ids: [first] })).status).toBe(403);
    expect((await member.post(`/api/licenses/${first}/move`, { direction: 'down' })).status).toBe(403);
  });
});

describe('公開 / 非公開 from the list', () => {
  it('hides and shows a licence: the catalogue follows, the change is audited, hiding records LicenseHidden', async () => {
    const id = ids[1] as number;
    const hide = await admin.put(`/api/licenses/${id}/published`, { published: false });
    expect(hide.status, await hide.clone().text()).toBe(200);
    const hidden = await hide.json();
    expect(hidden.license).toMatchObject({ id, published: false });
    expect(hidden.message).toBe('「二番目」を非公開にしました。');
    expect(await catalogue()).not.toContain(id);
    expect((await member.get(`/api/licenses/${id}`)).status).toBe(404);
    // The same side effects as the edit form: open Checkout Sessions are expired by the checkout module.
    const events = await db().execute<{ payload: { licenseId: number } }[]>(
      "select payload from outbox_events where name = 'LicenseHidden'",
    );
    expect(events.map((e) => e.payload.licenseId)).toEqual([id]);

    // Hiding what is hidden changes nothing and records nothing.
    expect((await admin.put(`/api/licenses/${id}/published`, { published: false })).status).toBe(200);
    const show = await admin.put(`/api/licenses/${id}/published`, { published: true });
    expect((await show.json()).message).toBe('「二番目」を公開しました。');
    expect(await catalogue()).toContain(id);
    const logs = await (await admin.get(`/api/audit-logs?action=license.update&target_id=${id}`)).json();
    expect(logs.audit_logs.map((e: { changes: unknown }) => e.changes)).toEqual([
      [{ field: 'published', label: '公開', before: '非公開', after: '公開' }],
      [{ field: 'published', label: '公開', before: '公開', after: '非公開' }],
    ]);
    expect((await db().execute("select count(*)::int as n from outbox_events where name = 'LicenseHidden'"))[0]?.n).toBe(1);
  });

  it('refuses members (403), a bad value (422) and an unknown licence (404)', async () => {
    const id = ids[0] as number;
    expect((await member.put(`/api/licenses/${id}/published`, { published: false })).status).toBe(403);
    const bad = await admin.put(`/api/licenses/${id}/published`, { published: 'yes' });
    expect(bad.status).toBe(422);
    expect((await bad.json()).errors.published).toEqual(['公開・非公開を選択してください。']);
    expect((await admin.put('/api/licenses/999999/published', { published: true })).status).toBe(404);
  });
});

describe('sales per licence', () => {
  it('counts each licence’s standing and refunded sales, and follows a new sale at once', async () => {
    const orm = t.runtime.deps.orm;
    const [a, b] = ids as [number, number];
    await aSale(orm, a);
    await aSale(orm, a);
    await aSale(orm, a, { refunded: true });
    await aSale(orm, b);
    const counts = async () => {
      const res = await admin.get('/api/sales/license-counts');
      expect(res.status).toBe(200);
      return ((await res.json()).counts as { license_id: number; count: number }[]).filter((row) => ids.includes(row.license_id));
    };
    expect(await counts()).toEqual([
      { license_id: a, count: 2, refunded_count: 1 },
      { license_id: b, count: 1, refunded_count: 0 },
    ]);
    // Cached until a sale changes: a sale paid now shows on the next request.
    await aSale(orm, b);
    await eventually(async () => (await counts())[1]?.count === 2, 3_000, 'the new sale counted');
    expect((await member.get('/api/sales/license-counts')).status).toBe(403);
  });
});
