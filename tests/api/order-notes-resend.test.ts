import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aLicense, aMember, anAdmin, aSale } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { eventually } from '../support/wait.ts';

let t: TestRuntime;
let smtp: TestSmtp;
let admin: TestClient;
let adminEmail: string;
let member: TestClient;
let memberId: string;
let saleId: number;

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestRuntime({ mode: 'all', smtpUrl: smtp.url });
  const orm = t.runtime.deps.orm;
  const licenseId = await aLicense(orm, { name: 'メモ用ライセンス', price: 5_500 });
  const buyer = await aMember(orm, { lastName: '備考', firstName: '花子' });
  memberId = buyer.id;
  saleId = await aSale(orm, licenseId, { userId: buyer.id, email: buyer.email, amount: 5_500 });
  const anAdministrator = await anAdmin(orm);
  adminEmail = anAdministrator.email;
  admin = new TestClient(t.app, '10.63.0.1');
  expect((await admin.login(anAdministrator.email, anAdministrator.password)).status).toBe(200);
  member = new TestClient(t.app, '10.63.0.2');
  expect((await member.login(buyer.email, buyer.password)).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

const SECRET = '電話で返金の相談あり（社内メモ）';

describe('notes on an order and on a member', () => {
  it('are kept with author and time, listed oldest first, audited, and refused when empty or too long', async () => {
    for (const path of [`/api/sales/${saleId}/notes`, `/api/users/${memberId}/notes`]) {
      const first = await admin.post(path, { body: `  ${SECRET}\n2行目  ` });
      expect(first.status, await first.clone().text()).toBe(201);
      const { note } = await first.json();
      expect(note).toMatchObject({ body: `${SECRET}\n2行目`, author_email: adminEmail });
      expect(Date.parse(note.created_at)).toBeLessThanOrEqual(Date.now());
      expect((await admin.post(path, { body: 'あ'.repeat(2000) })).status).toBe(201);
      const listed = (await (await admin.get(path)).json()).notes;
      expect(listed.map((n: { body: string }) => n.body)).toEqual([`${SECRET}\n2行目`, 'あ'.repeat(2000)]);

      const empty = await admin.post(path, { body: '   ' });
      expect(empty.status).toBe(422);
      expect((await empty.json()).errors.body).toEqual(['メモを入力してください。']);
      const long = await admin.post(path, { body: 'あ'.repeat(2001) });
      expect((await long.json()).errors.body).toEqual(['メモは2000文字以内で入力してください。']);
      expect((await admin.post(path, {})).status).toBe(422);
    }
    const saleAudit = await (await admin.get(`/api/audit-logs?action=sale.note&target_id=${saleId}`)).json();
    expect(saleAudit.audit_logs).toHaveLength(2);
    expect(saleAudit.audit_logs[0].action_label).toBe('注文のメモの追加');
    const userAudit = await (await admin.get(`/api/audit-logs?action=user.note&target_id=${memberId}`)).json();
    expect(userAudit.audit_logs).toHaveLength(2);
  });

  it('are never shown to members: their calls are 403 and their own APIs do not carry them', async () => {
    for (const path of [`/api/sales/${saleId}/notes`, `/api/users/${memberId}/notes`]) {
      expect((await member.get(path)).status).toBe(403);
      expect((await member.post(path, { body: '見たい' })).status).toBe(403);
    }
    for (const path of [
      `/api/sales/user/${memberId}`,
      `/api/users/${memberId}`,
      '/api/login',
      `/api/sales/${saleId}/receipt-addressee`,
    ]) {
      const res = await member.get(path);
      expect(res.status, path).toBe(200);
      expect(await res.text(), path).not.toContain(SECRET);
    }
    expect((await admin.get('/api/sales/999999999/notes')).status).toBe(404);
    expect((await admin.get('/api/users/00000000-0000-4000-8000-000000000000/notes')).status).toBe(404);
  });
});

describe('POST /api/sales/{id}/resend-purchase-mail', () => {
  it('sends the purchase mail again, marked 再送, to the member’s current address; logged, audited, 5 a day', async () => {
    const now = `now-${Date.now()}@example.jp`;
    await t.runtime.deps.orm.em.fork().execute('update users set email = ? where id = ?', [now, memberId]);
    const res = await admin.post(`/api/sales/${saleId}/resend-purchase-mail`, {});
    expect(res.status, await res.clone().text()).toBe(202);
    expect((await res.json()).message).toContain('再送');
    const mail = await smtp.waitFor((m) => smtp.to(now)(m) && (m.subject ?? '').includes('再送'));
    expect(mail.subject).toBe('【ライセンスストア】ご購入ありがとうございます（再送）');
    expect(mail.text).toContain('金額：¥5,500（税込）');
    const mails = await eventually(
      async () => {
        const sale = (await (await admin.get(`/api/sales/${saleId}`)).json()).sale;
        // Received by the SMTP server a moment before the worker records it as sent.
        return (
          sale.mails.find((m: { kind: string; status: string }) => m.kind === 'receipt-resend' && m.status === 'sent') ?? null
        );
      },
      15_000,
      'the resent mail in the order’s mails',
    );
    expect(mails).toMatchObject({ kind_label: 'ご購入のお礼（再送）', recipient: now, status: 'sent' });
    const audit = await (await admin.get(`/api/audit-logs?action=sale.purchase_mail.resend&target_id=${saleId}`)).json();
    expect(audit.audit_logs).toHaveLength(1);

    for (let i = 2; i <= 5; i++) expect((await admin.post(`/api/sales/${saleId}/resend-purchase-mail`, {})).status).toBe(202);
    const sixth = await admin.post(`/api/sales/${saleId}/resend-purchase-mail`, {});
    expect(sixth.status).toBe(429);
    expect((await sixth.json()).message).toContain('1日5回まで');
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await member.post(`/api/sales/${saleId}/resend-purchase-mail`, {})).status).toBe(403);
    expect((await admin.post('/api/sales/999999999/resend-purchase-mail', {})).status).toBe(404);
  });
});
