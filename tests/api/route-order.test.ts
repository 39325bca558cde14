import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { appModules } from '../../src/host/modules.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';

let shop: ShopWithStripe;
let licenseId: number;
let run = 0;

beforeAll(async () => {
  shop = await startShopWithStripe({ mode: 'web' });
  await createOrPromoteAdmin(shop.runtime.deps.orm, { email: 'order-admin@example.jp', password: 'admin-pass-123' });
  const license = await createLicense(
    shop.runtime.deps.orm,
    shop.runtime.deps.files,
    { id: 'test', email: 'test' },
    { name: 'BLS', description: '', price: 5500 },
    [],
  );
  licenseId = license.id;
}, 60_000);
afterAll(async () => shop?.stop());

const profile = (email: string) => ({
  email,
  email_confirmation: email,
  last_name: '順序',
  first_name: '確認',
  affiliations: 4,
  affiliation_name: '〇〇消防署',
  affiliation_other: '',
  distribution: true,
});

function licenseForm(fields: Record<string, string>): FormData {
  const data = new FormData();
  for (const [key, value] of Object.entries(fields)) data.set(key, value);
  return data;
}

/** Every call of the seed's table (§7), as the SPA makes it; returns what each answered: status and the keys of its JSON. */
async function seedCalls(app: ReturnType<typeof createApp>) {
  const n = ++run;
  const orm = shop.runtime.deps.orm;
  const memberEmail = `order-member-${n}@example.jp`;
  const member = await aMember(orm, {
    email: memberEmail,
    password: 'member-pass-123',
    lastName: '会員',
    firstName: `${n}`,
    emailVerified: true,
    affiliation: 5,
    affiliationName: '病院',
  });
  const doomed = await aMember(orm, {
    email: `order-doomed-${n}@example.jp`,
    password: 'member-pass-123',
    lastName: '削除',
    firstName: `${n}`,
    emailVerified: true,
  });
  const guest = new TestClient(app, `10.70.${n}.1`);
  const asMember = new TestClient(app, `10.70.${n}.2`);
  const asAdmin = new TestClient(app, `10.70.${n}.3`);
  const answers: string[] = [];
  const note = async (call: string, res: Response) => {
    const text = await res.text();
    let keys = '';
    try {
      keys = Object.keys(JSON.parse(text)).sort().join(',');
    } catch {
      keys = 'not json';
    }
    answers.push(`${call} → ${res.status} {${keys}}`);
  };
  const multipart = (client: TestClient, path: string, fields: Record<string, string>) =>
    client.request('POST', path, { body: licenseForm(fields) });

  await note('GET /api/login (signed out)', await guest.get('/api/login'));
  await note('POST /api/login', await asMember.login(memberEmail, 'member-pass-123'));
  await asAdmin.login('order-admin@example.jp', 'admin-pass-123');
  await note('GET /api/login', await asMember.get('/api/login'));
  await note('POST /api/forgot-password', await guest.post('/api/forgot-password', { email: memberEmail }));
  await note(
    'POST /api/reset-password',
    await guest.post('/api/reset-password', {
      email: memberEmail,
      token: 'x'.repeat(43),
      password: 'new-pass-1234',
      password_confirmation: 'new-pass-1234',
    }),
  );
  const registration = {
    ...profile(`order-new-${n}@example.jp`),
    password: 'new-pass-1234',
    password_confirmation: 'new-pass-1234',
  };
  await note('POST /api/users/registration/validate', await guest.post('/api/users/registration/validate', registration));
  await note('POST /api/users/registration', await guest.post('/api/users/registration', registration));
  await note('GET /api/users/{id}', await asMember.get(`/api/users/${member.id}`));
  await note('GET /api/users/{other id}', await asMember.get(`/api/users/${doomed.id}`));
  await note('POST /api/users/{id}', await asMember.post(`/api/users/${member.id}`, profile(memberEmail)));
  await note('PUT /api/users/{id}', await asMember.put(`/api/users/${member.id}`, profile(memberEmail)));
  await note(
    'PUT /api/users/{id}/password',
    await asMember.put(`/api/users/${member.id}/password`, {
      old_password: 'wrong-pass-123',
      new_password: 'next-pass-1234',
      new_password_confirmation: 'next-pass-1234',
    }),
  );
  await note('GET /api/users', await asAdmin.get('/api/users?name=順序'));
  await note(
    'PUT /api/users/{id}/password/force',
    await asAdmin.put(`/api/users/${doomed.id}/password/force`, {
      new_password: 'forced-pass-123',
      new_password_confirmation: 'forced-pass-123',
    }),
  );
  await note('DELETE /api/users/{id}/force', await asAdmin.request('DELETE', `/api/users/${doomed.id}/force`));
  await note('GET /api/licenses', await asMember.get('/api/licenses'));
  await note('GET /api/licenses/{id}', await asMember.get(`/api/licenses/${licenseId}`));
  await note('POST /api/licenses/stripe', await asMember.post('/api/licenses/stripe', { licenseId, distribution: true }));
  const fields = { name: `順序 ${n}`, description: '説明', price: '3300' };
  await note('POST /api/licenses/create/validate', await multipart(asAdmin, '/api/licenses/create/validate', fields));
  await note('POST /api/licenses/create', await multipart(asAdmin, '/api/licenses/create', fields));
  const current = await (await asAdmin.get(`/api/licenses/${licenseId}`)).json();
  const edit = { name: 'BLS', description: '', price: '5500', updated_at: current.license.updated_at };
  await note('POST /api/licenses/{id}/validate', await multipart(asAdmin, `/api/licenses/${licenseId}/validate`, edit));
  await note('POST /api/licenses/{id}', await multipart(asAdmin, `/api/licenses/${licenseId}`, edit));
  await note('GET /api/sales', await asAdmin.get(`/api/sales?license_id=${licenseId}`));
  await note('POST /api/sales/update', await asAdmin.post('/api/sales/update', { status: 1, licenseId }));
  await note('GET /api/sales/user/{id}', await asMember.get(`/api/sales/user/${member.id}`));
  await note('POST /api/logout', await asMember.post('/api/logout'));
  return answers;
}

it('answers every seed call the same whichever order the modules are mounted in', async () => {
  const inOrder = await seedCalls(shop.app);
  const reversed = await seedCalls(createApp(shop.runtime.deps, [...appModules].reverse()));
  expect(reversed).toEqual(inOrder);
  // And the answers are the real ones, not a shared failure.
  expect(inOrder).toEqual([
    'GET /api/login (signed out) → 200 {users}',
    'POST /api/login → 200 {users}',
    'GET /api/login → 200 {users}',
    'POST /api/forgot-password → 200 {message}',
    'POST /api/reset-password → 422 {code,errors,message}',
    'POST /api/users/registration/validate → 200 {user}',
    'POST /api/users/registration → 200 {message}',
    'GET /api/users/{id} → 200 {user}',
    'GET /api/users/{other id} → 403 {message}',
    'POST /api/users/{id} → 200 {user}',
    'PUT /api/users/{id} → 200 {message,user}',
    'PUT /api/users/{id}/password → 422 {errors,message}',
    'GET /api/users → 200 {page,per_page,total,total_capped,users}',
    'PUT /api/users/{id}/password/force → 200 {message}',
    'DELETE /api/users/{id}/force → 200 {message}',
    'GET /api/licenses → 200 {licenses,page,per_page,total}',
    'GET /api/licenses/{id} → 200 {license}',
    'POST /api/licenses/stripe → 200 {url}',
    'POST /api/licenses/create/validate → 200 {license}',
    'POST /api/licenses/create → 201 {license,message}',
    'POST /api/licenses/{id}/validate → 200 {license}',
    'POST /api/licenses/{id} → 200 {license,message}',
    'GET /api/sales → 200 {members_capped,page,per_page,sales,total,total_capped}',
    'POST /api/sales/update → 200 {message,sales}',
    'GET /api/sales/user/{id} → 200 {orders,sales}',
    'POST /api/logout → 200 {users}',
  ]);
}, 60_000);
