import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../src/db/kysely.ts';
import type { Em } from '../../src/db/orm.ts';
import { transact } from '../../src/events/outbox.ts';
import { consentHistory, setDistribution } from '../../src/modules/accounts/index.ts';
import { site } from '../../src/site-settings.ts';
import { aLicense, aMember, anAdmin, manyMembers } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { eventually } from '../support/wait.ts';

let t: TestRuntime;
let smtp: TestSmtp;
let admin: TestClient;
let adminEmail: string;
type Progress = { total: number; sent: number; failed: number; skipped: number; state: string; cancelled: number };

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestRuntime({ mode: 'all', smtpUrl: smtp.url, env: { ANNOUNCEMENT_RATE_PER_MINUTE: '600' } });
  const a = await anAdmin(t.runtime.deps.orm);
  adminEmail = a.email;
  admin = new TestClient(t.app, '10.61.0.1');
  expect((await admin.login(a.email, a.password)).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

const orm = () => t.runtime.deps.orm;
const em = () => orm().em.fork() as Em;
const subjectOf = (text: string) => `【${site.shopName}】${text}`;
const mailsWith = (subject: string) => smtp.messages.filter((m) => m.subject === subjectOf(subject));
const header = (mail: ParsedMail, name: string) => {
  const line = mail.headerLines.find((h) => h.key === name.toLowerCase())?.line ?? '';
  return line
    .slice(line.indexOf(':') + 1)
    .replace(/\r?\n\s+/g, ' ')
    .trim();
};
const tokenIn = (mail: ParsedMail) => /\/unsubscribe\/([A-Za-z0-9_-]{43})>/.exec(header(mail, 'List-Unsubscribe'))?.[1] ?? '';

async function announce(subject: string, extra: Record<string, unknown> = {}) {
  const res = await admin.post('/api/announcements', { subject, body: `${subject}の本文です。\n\n二段落目。`, ...extra });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}
const progress = async (id: string) => (await (await admin.get(`/api/announcements/${id}`)).json()) as Progress;
const finished = (id: string) =>
  eventually(
    async () => {
      const p = await progress(id);
      return p.state === 'done' ? p : undefined;
    },
    30_000,
    'the announcement to finish',
  );

describe('お知らせ配信', () => {
  it('goes to verified members who opted in, once each, naming the sender and carrying RFC 8058 unsubscribe', async () => {
    const licenseId = await aLicense(orm(), { name: '外傷初期対応トレーニングライセンス' });
    const optedIn = await Promise.all([1, 2, 3].map(() => aMember(orm())));
    const optedOut = await aMember(orm());
    await transact(orm().em as Em, (tx) => setDistribution(tx, optedOut.id, false, 'profile'));
    const unverified = await aMember(orm(), { emailVerified: false });
    await manyMembers(orm(), { to: 3, email: 'out-{n}@example.jp', distribution: false });
    await manyMembers(orm(), { to: 2, email: 'unverified-{n}@example.jp', emailVerified: false });
    const leaving = await aMember(orm());
    const client = new TestClient(t.app, '10.61.0.9');
    expect((await client.login(leaving.email, leaving.password)).status).toBe(200);
    expect((await client.post(`/api/users/${leaving.id}/withdrawal`, { password: leaving.password })).status).toBe(200);

    const id = await announce('新しいライセンスのご案内', { license_id: licenseId });
    const done = await finished(id);
    const audience = [...optedIn.map((m) => m.email), adminEmail];
    expect(done).toMatchObject({ total: audience.length, sent: audience.length, failed: 0, state: 'done' });
    const mails = mailsWith('新しいライセンスのご案内');
    expect(mails.map((m) => m.to && 'value' in m.to && m.to.value[0]?.address).sort()).toEqual(audience.sort());
    for (const gone of [optedOut.email, unverified.email, leaving.email, 'out-1@example.jp', 'unverified-1@example.jp']) {
      expect(mails.some(smtp.to(gone))).toBe(false);
    }
    const mail = mails.find(smtp.to(optedIn[0]?.email ?? '')) as ParsedMail;
    const token = tokenIn(mail);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(header(mail, 'List-Unsubscribe')).toBe(
      `<http://localhost:3000/unsubscribe/${token}>, <mailto:no-reply@example.jp?subject=unsubscribe>`,
    );
    expect(header(mail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    for (const fact of [
      site.companyName,
      site.address,
      site.contact,
      `/unsubscribe/${token}`,
      `/licenses/${licenseId}`,
      '外傷初期対応トレーニングライセンス',
    ]) {
      expect(mail.text).toContain(fact);
      expect(mail.html || '').toContain(fact.replaceAll('&', '&amp;'));
    }
    expect(mail.text).toContain(`${optedIn[0]?.lastName} ${optedIn[0]?.firstName} 様`);
    // Another member's token is another string.
    expect(tokenIn(mails.find(smtp.to(optedIn[1]?.email ?? '')) as ParsedMail)).not.toBe(token);
    const audit = await db(em()).selectFrom('audit_logs').select('action').where('target_id', '=', id).execute();
    expect(audit.map((a) => a.action)).toEqual(['announcement.create']);
  });

  it('transactional mails carry no unsubscribe and go out whatever the choice', async () => {
    const member = await aMember(orm(), { emailVerified: false });
    await transact(orm().em as Em, (tx) => setDistribution(tx, member.id, false, 'profile'));
    // The verification e-mail of registration (UserRegistered), sent though the member opted out.
    const mail = await smtp.waitFor(smtp.to(member.email));
    expect(mail.headerLines.some((h) => h.key.startsWith('list-'))).toBe(false);
    expect(mail.text).not.toContain('/unsubscribe/');
  });

  it('one-click unsubscribe by POST without cookies or CSRF token turns distribution off at once, and is recorded', async () => {
    const member = await aMember(orm());
    const id = await announce('配信停止の確認');
    await finished(id);
    const token = tokenIn(mailsWith('配信停止の確認').find(smtp.to(member.email)) as ParsedMail);
    const page = await t.app.request(`/unsubscribe/${token}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<form method="post">');
    expect(html).toContain('配信を停止する');
    // A mail provider's RFC 8058 POST: no cookie, no X-XSRF-TOKEN.
    const res = await t.app.request(`/unsubscribe/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('配信を停止しました');
    const row = await db(em()).selectFrom('users').select('distribution').where('id', '=', member.id).executeTakeFirstOrThrow();
    expect(row.distribution).toBe(false);
    expect((await consentHistory(em(), member.id)).map((c) => [c.source, c.distribution])).toEqual([
      ['registration', true],
      ['unsubscribe', false],
    ]);
    // Again: nothing changes, nothing more is recorded.
    expect((await t.app.request(`/unsubscribe/${token}`, { method: 'POST' })).status).toBe(200);
    expect(await consentHistory(em(), member.id)).toHaveLength(2);
    // The next announcement passes them by.
    await finished(await announce('停止後のお知らせ'));
    expect(mailsWith('停止後のお知らせ').some(smtp.to(member.email))).toBe(false);
    // Unknown tokens, and only this path is exempt from CSRF.
    expect((await t.app.request(`/unsubscribe/${'x'.repeat(43)}`, { method: 'POST' })).status).toBe(404);
    expect((await t.app.request('/unsubscribe/short', { method: 'POST' })).status).toBe(419);
    expect((await t.app.request('/api/announcements', { method: 'POST' })).status).toBe(419);

    // The member opts in again in their profile: recorded as 'profile'.
    const client = new TestClient(t.app, '10.61.0.7');
    expect((await client.login(member.email, member.password)).status).toBe(200);
    const me = (await (await client.get(`/api/users/${member.id}`)).json()) as { user: Record<string, unknown> };
    const edit = { ...me.user, email_confirmation: me.user.email, affiliations: me.user.affiliations, distribution: true };
    expect((await client.put(`/api/users/${member.id}`, edit)).status).toBe(200);
    expect((await consentHistory(em(), member.id)).map((c) => c.source)).toEqual(['registration', 'unsubscribe', 'profile']);
    // An edit that leaves the choice out keeps it.
    const { distribution: _left, ...withoutChoice } = { ...edit, updated_at: undefined };
    const again = (await (await client.get(`/api/users/${member.id}`)).json()) as { user: { updated_at: string } };
    expect((await client.put(`/api/users/${member.id}`, { ...withoutChoice, updated_at: again.user.updated_at })).status).toBe(
      200,
    );
    expect(await consentHistory(em(), member.id)).toHaveLength(3);
  });

  it('records the purchase screen’s choice as purchase, only when it changes', async () => {
    const member = await aMember(orm());
    await transact(orm().em as Em, (tx) => setDistribution(tx, member.id, true));
    await transact(orm().em as Em, (tx) => setDistribution(tx, member.id, false));
    expect((await consentHistory(em(), member.id)).map((c) => [c.source, c.distribution])).toEqual([
      ['registration', true],
      ['purchase', false],
    ]);
  });

  it('cancel stops further sends at once', async () => {
    await manyMembers(orm(), { to: 40, email: 'cancel-{n}@example.jp' });
    const id = await announce('中止するお知らせ');
    await eventually(async () => mailsWith('中止するお知らせ').length > 0, 20_000, 'the first mail');
    const res = await admin.post(`/api/announcements/${id}/cancel`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as Progress).state).toBe('cancelled');
    const settled = await eventually(
      async () => {
        const p = await progress(id);
        return p.sent + p.failed + p.skipped + p.cancelled === p.total ? p : undefined;
      },
      10_000,
      'the mail in flight to finish',
    );
    expect(settled.cancelled, JSON.stringify(settled)).toBeGreaterThan(0);
    expect(settled.sent).toBeLessThan(settled.total);
    expect(mailsWith('中止するお知らせ')).toHaveLength(settled.sent);
    expect((await admin.post(`/api/announcements/${id}/cancel`)).status).toBe(409);
    const audit = await db(em())
      .selectFrom('audit_logs')
      .select('action')
      .where('target_id', '=', id)
      .orderBy('created_at')
      .execute();
    expect(audit.map((a) => a.action)).toEqual(['announcement.create', 'announcement.cancel']);
  });

  it('previews, sends a test to the administrator only, lists, and refuses bad input and members', async () => {
    const draft = { subject: 'テストのご案内', body: '本文' };
    const preview = (await (await admin.post('/api/announcements/preview', draft)).json()) as { text: string; subject: string };
    expect(preview.subject).toBe(subjectOf('テストのご案内'));
    expect(preview.text).toContain(site.address);
    expect((await admin.post('/api/announcements/test', draft)).status).toBe(202);
    const test = await smtp.waitFor((m) => m.subject === subjectOf('［テスト送信］テストのご案内'));
    expect(smtp.to(adminEmail)(test)).toBe(true);
    expect(header(test, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    expect(smtp.messages.filter((m) => m.subject?.includes('テストのご案内'))).toHaveLength(1);

    const bad = await admin.post('/api/announcements', { subject: '', body: 'x'.repeat(10_001), license_id: 999_999 });
    expect(bad.status).toBe(422);
    const { errors } = (await bad.json()) as { errors: Record<string, string[]> };
    expect(Object.keys(errors).sort()).toEqual(['body', 'subject']);
    const noLicense = await admin.post('/api/announcements', { subject: '件名', body: '本文', license_id: 999_999 });
    expect(((await noLicense.json()) as { errors: Record<string, string[]> }).errors.license_id).toBeDefined();
    const list = (await (await admin.get('/api/announcements?per_page=2')).json()) as { announcements: unknown[]; total: number };
    expect(list.announcements).toHaveLength(2);
    expect(list.total).toBeGreaterThanOrEqual(4);
    expect((await admin.get('/api/announcements/00000000-0000-0000-0000-000000000000')).status).toBe(404);

    const m = await aMember(orm());
    const member = new TestClient(t.app, '10.61.0.6');
    expect((await member.login(m.email, m.password)).status).toBe(200);
    expect((await member.post('/api/announcements', draft)).status).toBe(403);
  });
});
