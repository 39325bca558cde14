import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/kysely.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { aLicense, aMember, dbAt, manySales } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

// The web process keeps sessions, list totals, page starts and the catalogue in memory, current
// through PostgreSQL change notices (docs/decisions/0021). Changes here come from another connection,
// as another process's would.
let t: TestRuntime;
let other: pg.Client;
let otherDb: Db;
let admin: TestClient;
let memberId: string;

const feed = () => {
  const changes = t.runtime.deps.changes;
  if (!changes) throw new Error('no change feed');
  return changes;
};
const elsewhere = (sql: string, params: unknown[] = []) => other.query(sql, params);

async function member(email: string) {
  const user = await aMember(t.runtime.deps.orm, { email, lastName: '通知', affiliation: 1, affiliationName: '署' });
  return user.id;
}

beforeAll(async () => {
  t = await startTestRuntime();
  other = new pg.Client({ connectionString: t.env.databaseUrl as string });
  await other.connect();
  otherDb = dbAt(t.env.databaseUrl as string);
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'notice-admin@example.jp', password: 'notice-admin-123' });
  admin = new TestClient(t.app, '10.91.0.1');
  await admin.login('notice-admin@example.jp', 'notice-admin-123');
  memberId = await member('notice-member@example.jp');
});
afterAll(async () => {
  await other?.end();
  await otherDb?.destroy();
  await t?.stop();
});

describe('caches kept current by change notices', () => {
  it('ends a cached session as soon as the member is banned or the session is deleted elsewhere', async () => {
    const client = new TestClient(t.app, '10.91.0.2');
    await client.login('notice-member@example.jp', 'member-pass-123');
    expect((await client.get(`/api/users/${memberId}`)).status).toBe(200);
    expect((await client.get(`/api/users/${memberId}`)).status).toBe(200); // now from memory
    await elsewhere('update users set banned = true where id = $1', [memberId]);
    await feed().sync();
    expect((await client.get(`/api/users/${memberId}`)).status).toBe(401);
    await elsewhere('update users set banned = false where id = $1', [memberId]);
    await feed().sync();
    expect((await client.get(`/api/users/${memberId}`)).status).toBe(200);
    await elsewhere('delete from sessions where user_id = $1', [memberId]);
    await feed().sync();
    expect((await client.get(`/api/users/${memberId}`)).status).toBe(401);
  });

  it('counts a sale paid elsewhere and keeps deeper pages exact', async () => {
    const licenseId = await aLicense(otherDb, { name: '通知テスト', price: 1000 });
    const insert = (from: number, to: number) =>
      manySales(otherDb, {
        from,
        to,
        licenseId,
        lastName: '通知',
        email: 'n{n}@example.jp',
        affiliation: null,
        affiliationName: '',
        amount: 1000,
        stripeSessionId: `cs_notice_${licenseId}_{n}`,
        paidAt: { start: '2026-06-01T00:00:00Z', stepSeconds: 60 },
      });
    await insert(1, 45);
    await feed().sync();
    const list = async (page: number) => (await admin.get(`/api/sales?license_id=${licenseId}&page=${page}`)).json();
    expect((await list(1)).total).toBe(45);
    const third = (await list(3)).sales.map((s: { user: { first_name: string } }) => s.user.first_name);
    expect(third).toEqual(['5', '4', '3', '2', '1']);
    expect((await list(3)).sales.map((s: { user: { first_name: string } }) => s.user.first_name)).toEqual(third);
    await insert(46, 47);
    await feed().sync();
    expect((await list(1)).total).toBe(47);
    expect((await list(3)).sales.map((s: { user: { first_name: string } }) => s.user.first_name)).toEqual([
      '7',
      '6',
      '5',
      '4',
      '3',
      '2',
      '1',
    ]);
  });

  it('shows a licence edited elsewhere in the catalogue', async () => {
    const before = await (await admin.get('/api/licenses?per_page=100')).json();
    await aLicense(otherDb, { name: '通知で追加', price: 2000 });
    await feed().sync();
    const after = await (await admin.get('/api/licenses?per_page=100')).json();
    expect(after.total).toBe(before.total + 1);
  });

  it('reads everything from the database while the notices are lost, and caches again once they are back', async () => {
    const client = new TestClient(t.app, '10.91.0.3');
    const id = await member('notice-lost@example.jp');
    await client.login('notice-lost@example.jp', 'member-pass-123');
    expect((await client.get(`/api/users/${id}`)).status).toBe(200);
    await elsewhere(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'shop change notices' and datname = current_database()",
    );
    await expect.poll(() => feed().live).toBe(false);
    // No notice can arrive now: the ban counts at once because nothing is read from memory.
    await elsewhere('update users set banned = true where id = $1', [id]);
    expect((await client.get(`/api/users/${id}`)).status).toBe(401);
    await expect.poll(() => feed().live, { timeout: 5_000 }).toBe(true);
    await elsewhere('update users set banned = false where id = $1', [id]);
    await feed().sync();
    expect((await client.get(`/api/users/${id}`)).status).toBe(200);
  });

  it('answers a change made through the API only once its notices are in: the next request sees it', async () => {
    const client = new TestClient(t.app, '10.91.0.4');
    const id = await member('notice-role@example.jp');
    await client.login('notice-role@example.jp', 'member-pass-123');
    expect((await client.get('/api/users')).status).toBe(403);
    expect((await admin.put(`/api/users/${id}/role`, { role: 'admin' })).status).toBe(200);
    // The role change ended the member's sessions; signing in again gives an administrator's.
    expect((await client.get('/api/users')).status).toBe(401);
  });
});
