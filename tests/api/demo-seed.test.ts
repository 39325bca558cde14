import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadDemo as loadDemoAccounts } from '../../src/modules/accounts/index.ts';
import { loadDemo as loadDemoLicenses } from '../../src/modules/licenses/index.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let t: TestRuntime;
beforeAll(async () => {
  t = await startTestRuntime();
});
afterAll(async () => t?.stop());

it('seeds a demo administrator and member on an empty database, once, with working random passwords', async () => {
  const { seedDemoAccounts } = await loadDemoAccounts();
  const accounts = await seedDemoAccounts(t.runtime.deps.orm);
  expect(accounts.map((a) => a.role)).toEqual(['admin', 'user']);
  expect(new Set(accounts.map((a) => a.password)).size).toBe(2);
  for (const account of accounts) {
    const res = await new TestClient(t.app).login(account.email, account.password);
    expect(res.status).toBe(200);
    const me = (await res.json()).users[0];
    expect(me.role).toBe(account.role);
    // A real member always has an affiliation (registration requires one): so does the demo member.
    if (account.role === 'user') expect(me).toMatchObject({ affiliations: 4, affiliation_name: 'デモ市消防局' });
  }
  expect(await seedDemoAccounts(t.runtime.deps.orm)).toEqual([]);
});

it('seeds demo licences with pictures once', async () => {
  const { seedDemoLicenses } = await loadDemoLicenses();
  expect(await seedDemoLicenses(t.runtime.deps.orm, t.runtime.deps.files)).toBe(3);
  expect(await seedDemoLicenses(t.runtime.deps.orm, t.runtime.deps.files)).toBe(0);
  const rows = await t.runtime.deps.orm.em.fork().execute('select count(*)::int as n from license_pictures');
  expect(rows[0]?.n).toBe(6);
});
