import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aLicense, aMember, anAdmin, aSale } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

// SHOP_CACHES=off (diagnostics and the bench's comparison): every request reads the database, with
// every header and check of the API.
let t: TestRuntime;

beforeAll(async () => {
  t = await startTestRuntime({ env: { SHOP_CACHES: 'off' } });
}, 60_000);
afterAll(async () => t?.stop());

const SECURITY_HEADERS = {
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

describe('SHOP_CACHES=off', () => {
  it('starts without a change feed: every request queries', () => {
    expect(t.env.caches).toBe(false);
    expect(t.runtime.deps.changes).toBeUndefined();
  });

  it('the catalogue: signed out 401, a member sees published licences only, with every security header', async () => {
    const { orm } = t.runtime.deps;
    const shown = await aLicense(orm, { name: '公開ライセンス' });
    const hidden = await aLicense(orm, { name: '非公開ライセンス', published: false });
    expect((await new TestClient(t.app).get('/api/licenses?page=1')).status).toBe(401);
    const member = await aMember(orm);
    const client = new TestClient(t.app);
    await client.login(member.email, member.password);
    const res = await client.get('/api/licenses?page=1');
    expect(res.status).toBe(200);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(res.headers.get(name), name).toBe(value);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-request-id')).toMatch(/^[\w-]{8,}$/);
    const ids = ((await res.json()) as { licenses: { id: number }[] }).licenses.map((l) => l.id);
    expect(ids).toContain(shown);
    expect(ids).not.toContain(hidden);
    // Still validated: a bad page is the spec's 422, never a 5xx.
    expect((await client.get('/api/licenses?page=abc')).status).toBe(422);
  });

  it('the sales list: members 403, administrators the newest sales first, with every security header', async () => {
    const { orm } = t.runtime.deps;
    const license = await aLicense(orm);
    const older = await aSale(orm, license, { paidAt: new Date('2026-01-01T00:00:00Z') });
    const newer = await aSale(orm, license, { paidAt: new Date('2026-02-01T00:00:00Z') });
    const member = await aMember(orm);
    const asMember = new TestClient(t.app);
    await asMember.login(member.email, member.password);
    expect((await asMember.get('/api/sales?page=1')).status).toBe(403);
    const admin = await anAdmin(orm);
    const client = new TestClient(t.app);
    await client.login(admin.email, admin.password);
    const res = await client.get('/api/sales?page=1');
    expect(res.status).toBe(200);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(res.headers.get(name), name).toBe(value);
    const body = (await res.json()) as { sales: { id: number }[]; total: number };
    expect(body.sales.map((s) => s.id).slice(0, 2)).toEqual([newer, older]);
    expect(body.total).toBeGreaterThanOrEqual(2);
  });
});
