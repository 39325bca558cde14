import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Em } from '../../src/db/orm.ts';
import { transact } from '../../src/events/outbox.ts';
import { createOrPromoteAdmin, createUser } from '../../src/modules/accounts/index.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let t: TestRuntime;
beforeAll(async () => {
  t = await startTestRuntime();
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'ops@example.jp', password: 'ops-pass-123' });
  await transact(t.runtime.deps.orm.em as Em, (tx) =>
    createUser(tx, { email: 'm@example.jp', password: 'member-pass-123', lastName: 'a', firstName: 'b', emailVerified: true }),
  );
});
afterAll(async () => t?.stop());

it('shows the queues to administrators only', async () => {
  const page = await t.app.request('/admin/queues', { headers: { accept: 'text/html' } });
  expect(page.status).toBe(302);
  expect(page.headers.get('location')).toBe('/login');
  expect((await t.app.request('/admin/queues/api/queues')).status).toBe(401);

  const member = new TestClient(t.app, '10.30.0.1');
  await member.login('m@example.jp', 'member-pass-123');
  expect((await member.get('/admin/queues/api/queues')).status).toBe(403);

  const admin = new TestClient(t.app, '10.30.0.2');
  await admin.login('ops@example.jp', 'ops-pass-123');
  const html = await admin.request('GET', '/admin/queues', { headers: { accept: 'text/html' } });
  expect(html.status).toBe(200);
  expect(await html.text()).toContain('ジョブキュー');
  const api = await admin.get('/admin/queues/api/queues');
  expect(api.status).toBe(200);
  const names = ((await api.json()).queues as { name: string }[]).map((q) => q.name).sort();
  expect(names).toEqual(['exports', 'mail', 'payments']);

  // Actions need a same-origin request.
  const crossSite = await admin.request('PUT', '/admin/queues/api/queues/mail/pause', {
    csrf: false,
    headers: { 'sec-fetch-site': 'cross-site' },
  });
  expect(crossSite.status).toBe(419);
  const sameSite = await admin.request('PUT', '/admin/queues/api/queues/mail/pause', {
    csrf: false,
    headers: { 'sec-fetch-site': 'same-origin' },
  });
  expect(sameSite.status).toBeLessThan(300);
  await t.runtime.deps.queues.mail.resume();
});
