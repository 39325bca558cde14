import { afterAll, beforeAll, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { issueFormToken } from '../../src/modules/contact/index.ts';
import { aLicense, aMember, aSale } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';

// Issue 35 item 5: after withdrawal a member asks through お問い合わせ and an administrator sends the 控え.
let smtp: TestSmtp;
let t: TestRuntime;
const ADMIN = { email: 'copy-admin@example.jp', password: 'admin-pass-123' };

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestRuntime({ mode: 'all', smtpUrl: smtp.url, env: { CONTACT_TO: 'desk@example.jp' } });
  await createOrPromoteAdmin(t.runtime.deps.orm, ADMIN);
}, 60_000);
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

it('a withdrawn member’s receipt: asked for through お問い合わせ, its 控え mailed by an administrator with the PDF, audited', async () => {
  const orm = t.runtime.deps.orm;
  const m = await aMember(orm, { lastName: '退会', firstName: '花子' });
  const saleId = await aSale(orm, await aLicense(orm, { name: 'BLS ライセンス' }), {
    userId: m.id,
    email: m.email,
    lastName: '退会',
    firstName: '花子',
  });
  const member = new TestClient(t.app, '10.85.0.1');
  expect((await member.login(m.email, m.password)).status).toBe(200);
  expect((await member.post(`/api/users/${m.id}/withdrawal`, { password: m.password })).status).toBe(200);

  // Signed out for good, they ask through the form.
  const guest = new TestClient(t.app, '10.85.0.2');
  const asked = await guest.post('/api/contact', {
    name: '退会 花子',
    email: m.email,
    category: '領収書の再発行（退会済みの方）',
    message: 'BLS ライセンスの領収書をお送りください。',
    form_token: issueFormToken(t.runtime.deps.authSecret, Date.now() - 10_000),
  });
  expect(asked.status).toBe(202);
  const request = await smtp.waitFor((mail) => smtp.to('desk@example.jp')(mail) && (mail.text ?? '').includes(m.email));
  expect(request.subject).toContain('領収書の再発行（退会済みの方）');

  // A member may not send 控え; an administrator may, to the address given.
  const stranger = await aMember(orm);
  const other = new TestClient(t.app, '10.85.0.3');
  await other.login(stranger.email, stranger.password);
  expect((await other.post(`/api/sales/${saleId}/receipt-copy/mail`, { email: m.email })).status).toBe(403);
  const admin = new TestClient(t.app, '10.85.0.4');
  expect((await admin.login(ADMIN.email, ADMIN.password)).status).toBe(200);
  const bad = await admin.post(`/api/sales/${saleId}/receipt-copy/mail`, { email: 'not-an-address' });
  expect(bad.status).toBe(422);
  expect((await bad.json()).errors.email[0]).toContain('送付先のメールアドレス');
  expect((await admin.post('/api/sales/999999/receipt-copy/mail', { email: m.email })).status).toBe(404);
  const sent = await admin.post(`/api/sales/${saleId}/receipt-copy/mail`, { email: m.email });
  expect(sent.status).toBe(202);

  const copy = await smtp.waitFor((mail) => smtp.to(m.email)(mail) && mail.subject?.includes('領収書の控え') === true);
  expect(copy.subject).toBe('【ライセンスストア】領収書の控えをお送りします');
  expect(copy.text?.split('\n')[0]).toBe('退会 花子 様');
  expect(copy.attachments).toHaveLength(1);
  expect(copy.attachments[0]?.contentType).toBe('application/pdf');
  expect(copy.attachments[0]?.filename).toMatch(/^領収書_.+_控え\.pdf$/);
  expect(copy.attachments[0]?.content.subarray(0, 5).toString()).toBe('%PDF-');

  const audit = await orm.em
    .fork()
    .execute("select actor_email, after from audit_logs where action = 'sale.receipt.copy.mail' and target_id = ?", [
      String(saleId),
    ]);
  expect(audit).toHaveLength(1);
  expect(audit[0]).toMatchObject({ actor_email: ADMIN.email, after: { sent_to: m.email, buyer_email: m.email } });

  // A refunded purchase gets no receipt, so no 控え either.
  const refunded = await aSale(orm, await aLicense(orm), { refunded: true });
  expect((await admin.post(`/api/sales/${refunded}/receipt-copy/mail`, { email: m.email })).status).toBe(409);
});
