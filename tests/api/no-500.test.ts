import { afterAll, beforeAll, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let t: TestRuntime;
let admin: TestClient;
let member: TestClient;
let memberId: string;

beforeAll(async () => {
  t = await startTestRuntime();
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'fuzz-admin@example.jp', password: 'admin-pass-123' });
  const user = await aMember(t.runtime.deps.orm, {
    email: 'fuzz@example.jp',
    password: 'member-pass-123',
    lastName: 'a',
    firstName: 'b',
    emailVerified: true,
  });
  memberId = user.id;
  admin = new TestClient(t.app, '10.40.0.1');
  await admin.login('fuzz-admin@example.jp', 'admin-pass-123');
  member = new TestClient(t.app, '10.40.0.2');
  await member.login('fuzz@example.jp', 'member-pass-123');
});
afterAll(async () => t?.stop());

const bodies: [string, string][] = [
  ['application/json', '{"email":'],
  ['application/json', '[]'],
  ['application/json', '{"email":{"$ne":null},"password":["a"],"affiliations":{"x":1},"licenseId":1e309,"distribution":"true"}'],
  ['application/json', JSON.stringify({ email: 'a'.repeat(10_000), licenseId: -1, page: '1', token: null })],
  ['application/json', '\u0000\u0001'],
  ['multipart/form-data; boundary=zzz', '--zzz\r\nContent-Disposition: form-data; name="file[0]"\r\n\r\nnot a file\r\n--zzz--'],
  ['multipart/form-data', 'no boundary'],
  [
    'multipart/form-data; boundary=zzz',
    '--zzz\r\nContent-Disposition: form-data; name="file[99999999999]"; filename="a.png"\r\n\r\n\x89PNG\r\n--zzz',
  ],
  ['text/plain', 'hello'],
  ['application/x-www-form-urlencoded', 'a=%ZZ&b[c]=1'],
];

const paths = [
  '/api/login',
  '/api/logout',
  '/api/forgot-password',
  '/api/reset-password',
  '/api/users/registration/validate',
  '/api/users/registration',
  '/api/users/registration/resend',
  '/api/users/x',
  '/api/users/%ZZ',
  '/api/users/x/password',
  '/api/licenses/create/validate',
  '/api/licenses/create',
  '/api/licenses/1',
  '/api/licenses/1/validate',
  '/api/licenses/99999999999999999999',
  '/api/licenses/stripe',
  '/api/stripe/webhook',
  '/api/sales/user/x',
  '/api/payments/events',
  '/api/payments/events/evt_x',
  '/api/payments/events/evt_x/replay',
  '/api/payments/events/%ZZ/replay',
  '/api/payments/reconciliations',
  '/api/payments/reconciliations/x',
  '/api/payments/reconciliations/00000000-0000-0000-0000-000000000000',
];

it('answers every malformed request from every kind of client without a 500', async () => {
  const failures: string[] = [];
  for (const client of [admin, member, new TestClient(t.app, '10.40.0.3')]) {
    for (const path of [...paths, `/api/users/${memberId}`, `/api/users/${memberId}/password`]) {
      for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
        for (const [type, body] of method === 'GET' ? [['', ''] as [string, string]] : bodies) {
          const res = await client.request(method, path, {
            body: method === 'GET' ? undefined : body,
            headers: type ? { 'content-type': type } : {},
          });
          if (res.status >= 500) failures.push(`${method} ${path} [${type}] → ${res.status} ${await res.text()}`);
        }
      }
    }
  }
  for (const query of ['?page=0', '?page=-1', '?per_page=abc', '?page=1&page=2', '?sort[]=x', '?page=99999999999']) {
    const res = await member.get(`/api/licenses${query}`);
    if (res.status >= 500) failures.push(`GET /api/licenses${query} → ${res.status}`);
  }
  for (const query of ['?type[]=x', '?from=2024-13-01', '?to=%ZZ', `?session=${'x'.repeat(5000)}`, '?state=failed&page=99999']) {
    const res = await admin.get(`/api/payments/events${query}`);
    if (res.status >= 500) failures.push(`GET /api/payments/events${query} → ${res.status}`);
  }
  for (const path of [
    '/api/checkout/sessions/%ZZ',
    '/api/checkout/sessions/cs_test_x',
    '/uploads/licenses/%00',
    '/readyz?x=%ZZ',
  ]) {
    const res = await member.get(path);
    if (res.status >= 500) failures.push(`GET ${path} → ${res.status}`);
  }
  expect(failures).toEqual([]);
}, 120_000);
