import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../src/db/kysely.ts';
import type { Em } from '../../src/db/orm.ts';
import { revision } from '../../src/legal-texts.ts';
import { site } from '../../src/site-settings.ts';
import { aMember, anAdmin, manyMembers } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { eventually } from '../support/wait.ts';

/** 利用規約第7条's notice of a terms revision (docs/decisions/0049), through the API and a real SMTP server. */
let t: TestRuntime;
let smtp: TestSmtp;
let admin: TestClient;
let adminEmail: string;
const SUBJECT = `【${site.shopName}】利用規約・プライバシーポリシー改定のお知らせ`;
const APP = 'http://localhost:3000';

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestRuntime({ mode: 'all', smtpUrl: smtp.url, env: { ANNOUNCEMENT_RATE_PER_MINUTE: '6000' } });
  const a = await anAdmin(t.runtime.deps.orm);
  adminEmail = a.email;
  admin = new TestClient(t.app, '10.62.0.1');
  expect((await admin.login(a.email, a.password)).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

const orm = () => t.runtime.deps.orm;
const em = () => orm().em.fork() as Em;
const addressOf = (mail: ParsedMail) => (mail.to && 'value' in mail.to ? mail.to.value[0]?.address : undefined);
type Notice = { id: string; state: string; total: number; sent: number; failed: number; created_by_email: string | null };
type Status = {
  revision: { id: string; effective_at: string };
  preview: { subject: string; text: string };
  audience: number;
  notices: Notice[];
};
const status = async () => (await (await admin.get('/api/announcements/legal-notice')).json()) as Status;
const finished = (id: string) =>
  eventually(
    async () => {
      const p = (await (await admin.get(`/api/announcements/${id}`)).json()) as Notice & { kind: string };
      return p.state === 'done' ? p : undefined;
    },
    30_000,
    'the notice to finish',
  );
async function send(body: Record<string, unknown>) {
  const res = await admin.post('/api/announcements/legal-notice', body);
  return { status: res.status, body: (await res.json()) as { id?: string; code?: string; message?: string } };
}

describe('改定のお知らせ (利用規約第7条)', () => {
  it('goes once to every verified member whatever their choice, without unsubscribe, with the effective date and the links', async () => {
    const optedIn = await aMember(orm(), { lastName: '佐藤', firstName: '花子' });
    const optedOut = await aMember(orm(), { distribution: false });
    await manyMembers(orm(), { to: 3, email: 'no-news-{n}@example.jp', distribution: false });
    const unverified = await aMember(orm(), { emailVerified: false });
    const leaving = await aMember(orm());
    const client = new TestClient(t.app, '10.62.0.9');
    expect((await client.login(leaving.email, leaving.password)).status).toBe(200);
    expect((await client.post(`/api/users/${leaving.id}/withdrawal`, { password: leaving.password })).status).toBe(200);
    const audience = [
      adminEmail,
      optedIn.email,
      optedOut.email,
      'no-news-1@example.jp',
      'no-news-2@example.jp',
      'no-news-3@example.jp',
    ];

    const before = await status();
    expect(before).toMatchObject({ revision: { id: revision.id }, audience: audience.length, notices: [] });
    expect(before.revision.effective_at).toBe('2026年12月28日 00:00（日本時間）');
    expect(before.preview.subject).toBe(SUBJECT);

    const sent = await send({ revision: revision.id });
    expect(sent.status).toBe(202);
    const id = sent.body.id as string;
    expect(await finished(id)).toMatchObject({ kind: 'legal_notice', total: audience.length, sent: audience.length, failed: 0 });
    const mails = smtp.messages.filter((m) => m.subject === SUBJECT);
    expect(mails.map(addressOf).sort()).toEqual([...audience].sort());
    for (const gone of [unverified.email, leaving.email]) expect(mails.some(smtp.to(gone))).toBe(false);

    const mail = mails.find(smtp.to(optedOut.email)) as ParsedMail;
    expect(mail.headerLines.filter((h) => h.key.startsWith('list-'))).toEqual([]);
    expect(`${mail.text}${mail.html}`).not.toContain('/unsubscribe/');
    expect(`${mail.text}${mail.html}`).not.toContain('配信を停止');
    for (const fact of [
      '施行日：2026年12月28日 00:00（日本時間）',
      '改定日：2026年11月28日',
      '第6条（個人情報の取扱い）',
      '第8条（禁止事項）',
      '第12条（準拠法・合意管轄）',
      '7. 保有個人データの開示・訂正・利用停止等の請求',
      `${APP}/terms`,
      `${APP}/privacy`,
      `${APP}/contact`,
      site.companyName,
      site.address,
      site.contact,
      'メール配信の設定（ご案内メールの受け取り）にかかわらず',
    ]) {
      expect(mail.text, fact).toContain(fact);
    }
    for (const link of ['terms', 'privacy', 'contact']) expect(mail.html).toContain(`<a href="${APP}/${link}">`);
    expect((mails.find(smtp.to(optedIn.email)) as ParsedMail).text).toMatch(/^佐藤 花子 様\n/);

    const after = await status();
    expect(after.notices).toEqual([
      expect.objectContaining({ id, state: 'done', created_by_email: adminEmail, sent: audience.length, total: audience.length }),
    ]);
    const audit = await db(em()).selectFrom('audit_logs').select(['action', 'after']).where('target_id', '=', id).execute();
    expect(audit).toEqual([
      { action: 'announcement.legal_notice', after: expect.objectContaining({ revision: revision.id, resend: false }) },
    ]);
  });

  it('asks before a second notice of the same revision, refuses one while another is sending, and a stale revision', async () => {
    const again = await send({ revision: revision.id });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('legal_notice_already_sent');
    expect(again.body.message).toContain(adminEmail);
    expect(again.body.message).toContain('（日本時間）');
    const stale = await send({ revision: '2026-11-01', resend: true });
    expect(stale).toMatchObject({ status: 409, body: { code: 'revision_changed' } });
    expect((await status()).notices).toHaveLength(1);

    const resent = await send({ revision: revision.id, resend: true });
    expect(resent.status).toBe(202);
    const meanwhile = await send({ revision: revision.id, resend: true });
    expect(meanwhile).toMatchObject({ status: 409, body: { code: 'legal_notice_in_progress' } });
    await finished(resent.body.id as string);
    const notices = (await status()).notices;
    expect(notices.map((n) => n.state)).toEqual(['done', 'done']);
    const audit = await db(em())
      .selectFrom('audit_logs')
      .select('after')
      .where('target_id', '=', resent.body.id as string)
      .execute();
    expect(audit[0]?.after).toMatchObject({ resend: true });
  });

  it('tests to oneself, refuses bad input, and is for administrators only', async () => {
    const test = await admin.post('/api/announcements/legal-notice/test');
    expect(test.status).toBe(202);
    const mail = await smtp.waitFor(
      (m) => m.subject === `【${site.shopName}】［テスト送信］利用規約・プライバシーポリシー改定のお知らせ`,
    );
    expect(addressOf(mail)).toBe(adminEmail);
    expect(mail.headerLines.some((h) => h.key.startsWith('list-'))).toBe(false);
    expect(mail.text).toContain('施行日：2026年12月28日 00:00（日本時間）');

    const bad = await admin.post('/api/announcements/legal-notice', { revision: 20261128, resend: 'yes' });
    expect(bad.status).toBe(422);
    expect(Object.keys(((await bad.json()) as { errors: Record<string, string[]> }).errors).sort()).toEqual([
      'resend',
      'revision',
    ]);

    const sentBefore = (await status()).notices.length;
    for (const [i, role] of (['operator', 'viewer'] as const).entries()) {
      const staff = await aMember(orm());
      expect((await admin.put(`/api/users/${staff.id}/role`, { role })).status).toBe(200);
      const client = new TestClient(t.app, `10.62.0.${20 + i}`);
      expect((await client.login(staff.email, staff.password)).status).toBe(200);
      for (const path of ['/api/announcements/legal-notice', '/api/announcements/legal-notice/test']) {
        const res = await client.post(path, { revision: revision.id, resend: true });
        expect(res.status, `${role} ${path}`).toBe(403);
        expect(((await res.json()) as { code: string }).code).toBe('forbidden_for_role');
      }
      // Reading the record is not sending: staff who may read members see it.
      expect((await client.get('/api/announcements/legal-notice')).status).toBe(200);
    }
    const m = await aMember(orm());
    const member = new TestClient(t.app, '10.62.0.30');
    expect((await member.login(m.email, m.password)).status).toBe(200);
    expect((await member.post('/api/announcements/legal-notice', { revision: revision.id })).status).toBe(403);
    expect((await member.get('/api/announcements/legal-notice')).status).toBe(403);
    expect((await status()).notices).toHaveLength(sentBefore);
  });
});
