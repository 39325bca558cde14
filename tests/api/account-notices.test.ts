import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { settled } from '../support/settle.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';

// Issue 20, item 5: パスワード変更のお知らせ and 新しい端末からのログイン, through the outbox and the mail
// queue (the real workers, a real SMTP server), in the mail log.
let t: TestRuntime;
let smtp: TestSmtp;
const FIREFOX_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.6; rv:132.0) Gecko/20100101 Firefox/132.0';

async function member(email: string, password = 'member-pass-123') {
  const user = await aMember(t.runtime.deps.orm, { email, password, lastName: '通知', firstName: '次郎', emailVerified: true });
  return user.id;
}

function browser(ip: string, userAgent = FIREFOX_MAC) {
  const client = new TestClient(t.app, ip);
  const send = client.request.bind(client);
  client.request = (method, path, options = {}) =>
    send(method, path, { ...options, headers: { 'user-agent': userAgent, ...options.headers } });
  return client;
}

const mailsTo = (address: string, subject: string) =>
  smtp.messages.filter((m) => smtp.to(address)(m) && (m.subject ?? '').includes(subject));

async function mailLog(userId: string) {
  return t.runtime.deps.orm.em
    .fork()
    .execute<{ template: string; status: string }[]>(
      'select template, status from mail_deliveries where user_id = ? order by created_at',
      [userId],
    );
}

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestRuntime({ mode: 'all', smtpUrl: smtp.url });
});
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

describe('新しい端末からのログイン', () => {
  it('is mailed after a sign-in from a browser the account has not used, with the time in JST, browser, OS and address', async () => {
    const id = await member('devices@example.jp');
    // A new account's first browser: its owner, just registered — not news to them.
    const first = browser(
      '198.51.100.81',
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
    );
    expect((await first.login('devices@example.jp', 'member-pass-123')).status).toBe(200);
    expect([...first.cookies.keys()].some((name) => name.endsWith('shop_device'))).toBe(true);
    // The same browser again (signed out in between): nothing either.
    await first.post('/api/logout');
    expect((await first.login('devices@example.jp', 'member-pass-123')).status).toBe(200);

    const second = browser('198.51.100.82');
    expect((await second.login('devices@example.jp', 'member-pass-123')).status).toBe(200);
    const mail = await smtp.waitFor(
      (m) => smtp.to('devices@example.jp')(m) && (m.subject ?? '').includes('新しい端末からのログイン'),
    );
    expect(mail.subject).toBe('【ライセンスストア】新しい端末からのログイン');
    const text = mail.text ?? '';
    expect(text).toMatch(/日時: \d{4}年\d{1,2}月\d{1,2}日 \d{2}:\d{2}（日本時間）/);
    expect(text).toContain('端末: Firefox（macOS）');
    expect(text).toContain('IPアドレス: 198.51.100.82');
    expect(text).toContain(`http://localhost:3000/users/${id}#sessions`);
    expect(mail.html).toContain('Firefox（macOS）');
    expect(mail.html).toContain(`/users/${id}#sessions`);

    await settled(t.runtime.deps, 'the sign-in notices');
    expect(mailsTo('devices@example.jp', '新しい端末からのログイン')).toHaveLength(1);
    expect((await mailLog(id)).filter((m) => m.template === 'new-device-sign-in')).toEqual([
      { template: 'new-device-sign-in', status: 'sent' },
    ]);
  });

  it('an account older than a day is told even of its first browser (it may predate the device records)', async () => {
    const id = await member('old-account@example.jp');
    await t.runtime.deps.orm.em.fork().execute("update users set created_at = now() - interval '2 days' where id = ?", [id]);
    await browser('198.51.100.85').login('old-account@example.jp', 'member-pass-123');
    await smtp.waitFor((m) => smtp.to('old-account@example.jp')(m) && (m.text ?? '').includes('198.51.100.85'));
  });

  it('a forged device cookie counts as a new browser', async () => {
    await member('forged@example.jp');
    const known = browser('198.51.100.83');
    await known.login('forged@example.jp', 'member-pass-123');
    const name = [...known.cookies.keys()].find((n) => n.endsWith('shop_device')) ?? 'shop_device';
    const forged = browser('198.51.100.84');
    forged.cookies.set(name, `${(known.cookies.get(name) ?? '').split('.')[0]}.forged-signature`);
    await forged.login('forged@example.jp', 'member-pass-123');
    await smtp.waitFor((m) => smtp.to('forged@example.jp')(m) && (m.text ?? '').includes('198.51.100.84'));
  });
});

describe('パスワード変更のお知らせ', () => {
  it('is mailed after the member changes it, after a reset and after an administrator sets it', async () => {
    const id = await member('pw-notice@example.jp');
    const pc = browser('198.51.100.91');
    await pc.login('pw-notice@example.jp', 'member-pass-123');
    const changed = await pc.put(`/api/users/${id}/password`, {
      old_password: 'member-pass-123',
      new_password: 'second-pass-456',
      new_password_confirmation: 'second-pass-456',
    });
    expect(changed.status).toBe(200);
    const mail = await smtp.waitFor(
      (m) => smtp.to('pw-notice@example.jp')(m) && (m.subject ?? '').includes('パスワード変更のお知らせ'),
    );
    expect(mail.subject).toBe('【ライセンスストア】パスワード変更のお知らせ');
    expect(mail.text).toContain('パスワード変更画面から変更されました');
    expect(mail.text).toMatch(/（日本時間）/);
    expect(mail.html).toContain('パスワードを再設定する');

    // A reset by link.
    await new TestClient(t.app, '198.51.100.92').post('/api/forgot-password', { email: 'pw-notice@example.jp' });
    const reset = await smtp.waitFor(
      (m) => smtp.to('pw-notice@example.jp')(m) && (m.subject ?? '').includes('パスワード再設定のご案内'),
    );
    const token = /reset-password\/([\w-]+)/.exec(reset.text ?? '')?.[1];
    const done = await new TestClient(t.app, '198.51.100.92').post('/api/reset-password', {
      token,
      email: 'pw-notice@example.jp',
      password: 'third-pass-789',
      password_confirmation: 'third-pass-789',
    });
    expect(done.status).toBe(200);
    await smtp.waitFor(
      (m) => smtp.to('pw-notice@example.jp')(m) && (m.text ?? '').includes('再設定のリンクから再設定されました'),
    );

    // An administrator sets it.
    await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'notice-admin@example.jp', password: 'admin-pass-123' });
    const admin = browser('198.51.100.93');
    await admin.login('notice-admin@example.jp', 'admin-pass-123');
    const forced = await admin.put(`/api/users/${id}/password/force`, {
      new_password: 'fourth-pass-012',
      new_password_confirmation: 'fourth-pass-012',
    });
    expect(forced.status).toBe(200);
    const byAdmin = await smtp.waitFor(
      (m) => smtp.to('pw-notice@example.jp')(m) && (m.text ?? '').includes('管理者によって変更されました'),
    );
    // The member did not choose it: where the new password comes from, and how to choose one themselves.
    expect(byAdmin.text).toContain('管理者からのご連絡でお知らせします');
    expect(byAdmin.text).toContain('ご自身で新しいパスワードを決めたい場合');
    expect(byAdmin.text).not.toContain('ご自身で変更された場合');
    expect(byAdmin.html).toContain('パスワードを再設定する');
    expect(mailsTo('pw-notice@example.jp', 'パスワード変更のお知らせ')).toHaveLength(3);
    expect((await mailLog(id)).filter((m) => m.template === 'password-changed')).toHaveLength(3);
  });
});
