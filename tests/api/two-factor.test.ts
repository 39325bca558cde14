import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { enrolTwoFactor, freshCode, rememberSecret, secretFromUri, secretOf, totp } from '../support/two-factor.ts';

let t: TestRuntime;
let smtp: TestSmtp;
const ADMIN = { email: 'tf-admin@example.jp', password: 'tf-admin-pass-123' };
const NOTICE = '【ライセンスストア】二段階認証の設定変更のお知らせ';
let n = 0;
/** Each test signs in from its own network, so throttles of one test never touch another. */
const client = () => new TestClient(t.app, `10.90.${++n}.1`);

async function member(email: string, password = 'member-pass-123') {
  await aMember(t.runtime.deps.orm, { email, password, lastName: '二段', firstName: '太郎', emailVerified: true });
  const c = client();
  expect((await c.login(email, password)).status).toBe(200);
  return c;
}

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestRuntime({ mode: 'all', smtpUrl: smtp.url });
  await createOrPromoteAdmin(t.runtime.deps.orm, ADMIN);
});
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

describe('administrators must enrol in two-factor', () => {
  it('refuses every admin-only call with 403 two_factor_enrollment_required until they enrol, then allows it', async () => {
    const admin = client();
    const res = await admin.login(ADMIN.email, ADMIN.password, { enrolAdmins: false });
    expect(res.status).toBe(200);
    expect((await res.json()).users[0]).toMatchObject({ role: 'admin', two_factor_enabled: false });
    for (const path of ['/api/users', '/api/sales', '/api/audit-logs', '/api/mails', '/api/operations', '/api/exports']) {
      const refused = await admin.get(path);
      expect(refused.status, path).toBe(403);
      expect(await refused.json()).toEqual({
        code: 'two_factor_enrollment_required',
        message: '管理者は二段階認証の設定が必要です。',
      });
    }
    // Their own account pages still work, so they can enrol.
    expect((await admin.get('/api/me/two-factor')).status).toBe(200);

    const setup = await admin.post('/api/me/two-factor/setup', { password: ADMIN.password });
    expect(setup.status).toBe(200);
    const { totp_uri: uri, secret } = await setup.json();
    expect(uri).toMatch(/^otpauth:\/\/totp\//);
    expect(secretFromUri(uri)).toBe(secret);
    const wrong = await admin.post('/api/me/two-factor/enable', {
      code: String((Number(totp(secret)) + 1) % 1_000_000).padStart(6, '0'),
    });
    expect(wrong.status).toBe(422);
    expect((await wrong.json()).errors.code[0]).toMatch(/確認コードが正しくありません/);
    const enabled = await admin.post('/api/me/two-factor/enable', { code: totp(secret) });
    expect(enabled.status).toBe(200);
    const { recovery_codes: codes } = await enabled.json();
    expect(codes).toHaveLength(10);
    rememberSecret(ADMIN.email, secret);
    expect(new Set(codes).size).toBe(10);
    expect((await admin.get('/api/users')).status).toBe(200);

    // Signing in again: the password alone makes no session; the code does.
    const again = client();
    const first = await again.post('/api/login', ADMIN);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ two_factor_required: true, trust_device_available: false });
    expect(await (await again.get('/api/login')).json()).toEqual({ users: [] });
    expect((await again.get('/api/users')).status).toBe(401);
    const second = await again.post('/api/login/two-factor', { code: await freshCode(secret) });
    expect(second.status).toBe(200);
    expect((await second.json()).users[0]).toMatchObject({ email: ADMIN.email, role: 'admin', two_factor_enabled: true });
    expect((await again.get('/api/users')).status).toBe(200);

    // Administrators cannot turn it off.
    const off = await again.request('DELETE', '/api/me/two-factor', { json: { password: ADMIN.password, code: totp(secret) } });
    expect(off.status).toBe(409);
    expect((await off.json()).message).toBe('管理者は二段階認証を無効にできません。');
  });

  it('a member granted the administrator role must enrol before using it', async () => {
    const email = 'promoted@example.jp';
    await member(email);
    await createOrPromoteAdmin(t.runtime.deps.orm, { email, password: 'ignored-pass-1' });
    const promoted = client();
    await promoted.login(email, 'member-pass-123', { enrolAdmins: false });
    const refused = await promoted.get('/api/users');
    expect(refused.status).toBe(403);
    expect((await refused.json()).code).toBe('two_factor_enrollment_required');
  });
});

describe('members with two-factor', () => {
  it('sign in with a code computed from the otpauth secret; a recovery code works once', async () => {
    const email = 'tf-member@example.jp';
    const c = await member(email);
    const { secret, recoveryCodes } = await enrolTwoFactor(c, email, 'member-pass-123');
    const status = await (await c.get('/api/me/two-factor')).json();
    expect(status).toMatchObject({ enabled: true, recovery_codes_remaining: 10 });

    const other = client();
    expect(await (await other.post('/api/login', { email, password: 'member-pass-123' })).json()).toEqual({
      two_factor_required: true,
      trust_device_available: true,
    });
    const code = await freshCode(secret);
    const signedIn = await other.post('/api/login/two-factor', { code });
    expect(signedIn.status).toBe(200);
    expect((await signedIn.json()).users[0].email).toBe(email);
    // The same code, replayed while still valid, signs nobody in (ASVS V6.5.1).
    const replay = client();
    await replay.post('/api/login', { email, password: 'member-pass-123' });
    const replayed = await replay.post('/api/login/two-factor', { code });
    expect(replayed.status).toBe(422);
    expect((await replayed.json()).errors.code[0]).toBe('この確認コードは使用済みです。次に表示されるコードを入力してください。');
    expect(await (await replay.get('/api/login')).json()).toEqual({ users: [] });

    const recovery = recoveryCodes[0] as string;
    const once = client();
    await once.post('/api/login', { email, password: 'member-pass-123' });
    expect((await once.post('/api/login/two-factor', { recovery_code: recovery })).status).toBe(200);
    const twice = client();
    await twice.post('/api/login', { email, password: 'member-pass-123' });
    const refused = await twice.post('/api/login/two-factor', { recovery_code: recovery });
    expect(refused.status).toBe(422);
    expect((await refused.json()).errors.recovery_code[0]).toMatch(/すでに使用されています/);
    expect(await (await twice.get('/api/login')).json()).toEqual({ users: [] });
    expect((await (await c.get('/api/me/two-factor')).json()).recovery_codes_remaining).toBe(9);

    // A new set replaces the old one.
    const fresh = await c.post('/api/me/two-factor/recovery-codes', { password: 'member-pass-123' });
    expect(fresh.status).toBe(200);
    expect((await fresh.json()).recovery_codes).toHaveLength(10);
    const old = client();
    await old.post('/api/login', { email, password: 'member-pass-123' });
    expect((await old.post('/api/login/two-factor', { recovery_code: recoveryCodes[1] })).status).toBe(422);
  });

  it('counts wrong codes toward the account sign-in throttle', async () => {
    const email = 'tf-guess@example.jp';
    const c = await member(email);
    const { secret } = await enrolTwoFactor(c, email, 'member-pass-123');
    const wrong = String((Number(totp(secret)) + 500_000) % 1_000_000).padStart(6, '0');
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      // Each challenge allows few tries: sign in again with the password as an attacker would.
      const attacker = new TestClient(t.app, `10.91.${i}.1`);
      const pw = await attacker.post('/api/login', { email, password: 'member-pass-123' });
      if (pw.status === 429) {
        statuses.push(429);
        continue;
      }
      statuses.push((await attacker.post('/api/login/two-factor', { code: wrong })).status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(422));
    expect(statuses.slice(10)).toEqual([429, 429]);
    // The right password and code are refused too while the account is throttled.
    const owner = client();
    expect((await owner.post('/api/login', { email, password: 'member-pass-123' })).status).toBe(429);
  });

  it('trusts a device for 30 days when asked (a signed cookie bound to the account), never for administrators', async () => {
    const email = 'tf-trust@example.jp';
    const c = await member(email);
    const { secret } = await enrolTwoFactor(c, email, 'member-pass-123');
    const device = client();
    await device.post('/api/login', { email, password: 'member-pass-123' });
    const trusted = await device.post('/api/login/two-factor', { code: await freshCode(secret), trust_device: true });
    expect(trusted.status).toBe(200);
    const cookie = trusted.headers.getSetCookie().find((line) => line.includes('trust_device='));
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/Max-Age=2592000/i);
    await device.post('/api/logout');
    const again = await device.post('/api/login', { email, password: 'member-pass-123' });
    const againBody = await again.json();
    expect(againBody.users[0].email).toBe(email);
    // The cookie is worthless in another browser for another account, and when tampered with.
    const [name, value] = [...device.cookies].find(([k]) => k.includes('trust_device')) as [string, string];
    const other = client();
    other.cookies.set(
      name,
      value.replace(/^./, (ch) => (ch === 'a' ? 'b' : 'a')),
    );
    expect((await (await other.post('/api/login', { email, password: 'member-pass-123' })).json()).two_factor_required).toBe(
      true,
    );

    // An administrator asking for it gets no trust cookie and gives a code next time.
    const admin = client();
    const pending = await admin.post('/api/login', ADMIN);
    expect(await pending.json()).toEqual({ two_factor_required: true, trust_device_available: false });
    const adminIn = await admin.post('/api/login/two-factor', {
      code: await freshCode(secretOf(ADMIN.email) as string),
      trust_device: true,
    });
    expect(adminIn.status).toBe(200);
    expect(adminIn.headers.getSetCookie().some((line) => line.includes('trust_device='))).toBe(false);
    // A member's trust cookie planted in an administrator's browser does not spare the code either.
    admin.cookies.set(name, value);
    await admin.post('/api/logout');
    expect((await (await admin.post('/api/login', ADMIN)).json()).two_factor_required).toBe(true);
  });

  it('turns two-factor off with the password and a current code, and mails a notice each time (JST)', async () => {
    const email = 'tf-off@example.jp';
    const c = await member(email);
    const { secret } = await enrolTwoFactor(c, email, 'member-pass-123');
    const on = await smtp.waitFor((m) => smtp.to(email)(m) && m.subject === NOTICE);
    expect(on.text).toContain('二段階認証（確認コード）を有効にしました。');
    expect(on.text).toMatch(/\d{4}年\d{1,2}月\d{1,2}日 \d{2}:\d{2}（日本時間）/);

    const badPassword = await c.request('DELETE', '/api/me/two-factor', {
      json: { password: 'wrong-pass-1', code: totp(secret) },
    });
    expect(badPassword.status).toBe(422);
    expect((await badPassword.json()).errors.password).toBeDefined();
    const badCode = await c.request('DELETE', '/api/me/two-factor', { json: { password: 'member-pass-123', code: '12345' } });
    expect(badCode.status).toBe(422);
    const off = await c.request('DELETE', '/api/me/two-factor', { json: { password: 'member-pass-123', code: totp(secret) } });
    expect(off.status).toBe(200);
    const offMail = await smtp.waitFor(
      (m) => smtp.to(email)(m) && m.subject === NOTICE && m.text?.includes('無効にしました') === true,
    );
    expect(offMail.text).toContain('（日本時間）');
    // The member is signed in still, and signs in with the password alone again.
    expect((await (await c.get('/api/login')).json()).users[0].two_factor_enabled).toBe(false);
    const plain = client();
    expect((await (await plain.post('/api/login', { email, password: 'member-pass-123' })).json()).users[0].email).toBe(email);
    const log = await t.runtime.deps.orm.em
      .fork()
      .execute<{ n: number }[]>(
        "select count(*)::int as n from mail_deliveries where template = 'two-factor-changed' and recipient = ?",
        [email],
      );
    expect(log[0]?.n).toBe(2);
  });

  it('an enrolled member changes the e-mail address only with the password and a current code', async () => {
    const email = 'tf-move@example.jp';
    const c = await member(email);
    const { secret } = await enrolTwoFactor(c, email, 'member-pass-123');
    const me = (await (await c.get('/api/login')).json()).users[0];
    const profile = {
      email: 'tf-moved@example.jp',
      email_confirmation: 'tf-moved@example.jp',
      last_name: '二段',
      first_name: '太郎',
      affiliations: 4,
      affiliation_name: '〇〇市消防局',
      affiliation_other: '',
      distribution: true,
      updated_at: me.updated_at,
    };
    const withoutCode = await c.put(`/api/users/${me.id}`, { ...profile, current_password: 'member-pass-123' });
    expect(withoutCode.status).toBe(422);
    expect((await withoutCode.json()).errors.code[0]).toBe('確認コードを入力してください。');
    const wrong = String((Number(totp(secret)) + 500_000) % 1_000_000).padStart(6, '0');
    const wrongCode = await c.put(`/api/users/${me.id}`, { ...profile, current_password: 'member-pass-123', code: wrong });
    expect(wrongCode.status).toBe(422);
    expect(Object.keys((await wrongCode.json()).errors)).toEqual(['code']);
    const moved = await c.put(`/api/users/${me.id}`, { ...profile, current_password: 'member-pass-123', code: totp(secret) });
    expect(moved.status, await moved.clone().text()).toBe(200);
  });

  it('answers bad input with Japanese 422s, never a 5xx', async () => {
    const c = await member('tf-bad@example.jp');
    for (const [method, path, json] of [
      ['POST', '/api/me/two-factor/setup', { password: 'wrong-pass-9' }],
      ['POST', '/api/me/two-factor/setup', { password: 12 }],
      ['POST', '/api/me/two-factor/enable', { code: 'abc' }],
      ['POST', '/api/me/two-factor/enable', { code: '123456' }],
      ['POST', '/api/me/passkeys', { response: { id: 'x', response: {} } }],
      ['POST', '/api/me/passkeys', { response: 'nope' }],
      ['POST', '/api/login/two-factor', { code: '123456' }],
      ['POST', '/api/login/passkey', { response: { id: 'x', response: {} } }],
      ['DELETE', '/api/me/passkeys/00000000-0000-4000-8000-000000000000', undefined],
    ] as const) {
      const res = await c.request(method, path, { json });
      expect(res.status, `${method} ${path}`).toBeLessThan(500);
      expect(typeof (await res.json()).message).toBe('string');
    }
  });
});
