import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Em } from '../../src/db/orm.ts';
import { transact } from '../../src/events/outbox.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { aMember, aMemberIn } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { settled } from '../support/settle.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';

let t: TestRuntime;
let smtp: TestSmtp;
let ipSeq = 0;
const client = () => new TestClient(t.app, `10.9.${Math.floor(++ipSeq / 200)}.${ipSeq % 200}`);
const unique = (name: string) => `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.jp`;

const valid = (email = unique('new')) => ({
  email,
  email_confirmation: email,
  last_name: '山田',
  first_name: '太郎',
  affiliations: 4,
  affiliation_name: '〇〇市消防局',
  affiliation_other: '',
  distribution: true,
  password: 'password-123',
  password_confirmation: 'password-123',
});

const linkIn = (text: string | undefined, path: string) => {
  const match = new RegExp(`http://localhost:3000(${path.replace(/\//g, '\\/')}[\\w-]+)`).exec(text ?? '');
  if (!match?.[1]) throw new Error(`no ${path} link in:\n${text}`);
  return match[1];
};

/** A verified member with the registration form's details (the registration flow itself is tested above), signed in. */
async function signedInMember(email = unique('member'), password = 'password-123') {
  const { id } = await aMember(t.runtime.deps.orm, {
    email,
    password,
    lastName: '山田',
    firstName: '太郎',
    affiliation: 4,
    affiliationName: '〇〇市消防局',
  });
  const member = client();
  expect((await member.login(email, password)).status).toBe(200);
  return { email, password, member, id };
}

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestRuntime({ mode: 'all', smtpUrl: smtp.url });
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'admin@example.jp', password: 'admin-pass-123' });
});
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

describe('POST /api/users/registration/validate', () => {
  const validate = (body: unknown) => client().post('/api/users/registration/validate', body);
  const errorsOf = async (body: unknown) => {
    const res = await validate(body);
    expect(res.status).toBe(422);
    const json = await res.json();
    expect(json.message).toBe('不正な値が入力されました。');
    return json.errors as Record<string, string[]>;
  };

  it('answers the normalised input, never the password', async () => {
    const res = await validate({ ...valid('  Mixed.Case@Example.JP '), email_confirmation: 'mixed.case@example.jp' });
    expect(res.status).toBe(200);
    const { user } = await res.json();
    expect(user).toMatchObject({ email: 'mixed.case@example.jp', affiliations: 4, affiliation_other: null, distribution: true });
    expect(user).not.toHaveProperty('password');
  });

  it('names every missing field in Japanese', async () => {
    const errors = await errorsOf({});
    for (const field of [
      'email',
      'email_confirmation',
      'last_name',
      'first_name',
      'affiliations',
      'affiliation_name',
      'password',
    ]) {
      expect(errors[field]?.[0], field).toMatch(/入力|選択/);
    }
  });

  it.each([
    ['last_name', '姓'.repeat(51), '姓は50文字以内で入力してください。'],
    ['first_name', 'あ'.repeat(51), '名は50文字以内で入力してください。'],
    ['affiliation_name', 'x'.repeat(101), '所属名は100文字以内で入力してください。'],
    ['last_name', '   ', '姓を入力してください。'],
    ['last_name', 42, '姓を入力してください。'],
    ['email', 'not-an-email', 'メールアドレスの形式が正しくありません。'],
    ['password', 'short', 'パスワードは8文字以上で入力してください。'],
    ['password', 'x'.repeat(73), 'パスワードは72文字以内で入力してください。'],
    ['affiliations', 0, '所属を選択してください。'],
    ['affiliations', 7, '所属を選択してください。'],
    ['affiliations', 'x', '所属を選択してください。'],
    ['affiliations', 1.5, '所属を選択してください。'],
    ['affiliations', null, '所属を選択してください。'],
    ['distribution', 'yes', '配信の希望は「はい」か「いいえ」で選択してください。'],
  ])('rejects %s = %j', async (field, value, message) => {
    const body: Record<string, unknown> = valid();
    body[field] = value;
    if (field === 'email') body.email_confirmation = value;
    if (field === 'password') body.password_confirmation = value;
    const errors = await errorsOf(body);
    expect(errors[field]?.[0]).toBe(message);
  });

  it('requires matching confirmations', async () => {
    const errors = await errorsOf({ ...valid(), email_confirmation: 'other@example.jp', password_confirmation: 'different-123' });
    expect(errors.email_confirmation).toEqual(['メールアドレス（確認）がメールアドレスと一致しません。']);
    expect(errors.password_confirmation).toEqual(['パスワード（確認）がパスワードと一致しません。']);
  });

  it('reports every error in one answer: mismatched confirmations together with the other fields', async () => {
    const errors = await errorsOf({
      ...valid(),
      email_confirmation: 'typo@example.jp',
      last_name: '',
      affiliations: 6,
      affiliation_other: '',
      affiliation_name: 'x'.repeat(101),
      password_confirmation: 'different-123',
    });
    expect(errors).toEqual({
      email_confirmation: ['メールアドレス（確認）がメールアドレスと一致しません。'],
      last_name: ['姓を入力してください。'],
      affiliation_name: ['所属名は100文字以内で入力してください。'],
      affiliation_other: ['その他の所属を入力してください'],
      password_confirmation: ['パスワード（確認）がパスワードと一致しません。'],
    });
    // A field that fails on its own gets only its first message; an empty pair is not also "mismatched".
    const empty = await errorsOf({
      ...valid(),
      email: '',
      email_confirmation: '',
      password: 'short',
      password_confirmation: 'short',
    });
    expect(empty).toEqual({
      email: ['メールアドレスを入力してください。'],
      email_confirmation: ['メールアドレス（確認）を入力してください。'],
      password: ['パスワードは8文字以上で入力してください。'],
    });
    // A too-short password whose confirmation differs: both facts at once, so one correction fixes both.
    const short = await errorsOf({ ...valid(), password: 'short', password_confirmation: 'shorter' });
    expect(short).toEqual({
      password: ['パスワードは8文字以上で入力してください。'],
      password_confirmation: ['パスワード（確認）がパスワードと一致しません。'],
    });
  });

  it('requires the other-text for affiliation 6 and drops it for the others', async () => {
    const errors = await errorsOf({ ...valid(), affiliations: 6, affiliation_other: '' });
    expect(errors.affiliation_other).toEqual(['その他の所属を入力してください']);
    const six = await (await validate({ ...valid(), affiliations: '6', affiliation_other: '民間救急' })).json();
    expect(six.user).toMatchObject({ affiliations: 6, affiliation_other: '民間救急' });
    const two = await (await validate({ ...valid(), affiliations: 2, affiliation_other: '無視される' })).json();
    expect(two.user.affiliation_other).toBeNull();
  });

  it('answers 400 for malformed JSON and changes nothing', async () => {
    const res = await client().request('POST', '/api/users/registration', {
      body: '{"email":',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
  });
});

describe('registration and verification', () => {
  it('registers, e-mails a verification link that works once, and only then allows sign-in', async () => {
    const email = unique('flow');
    const res = await client().post('/api/users/registration', { ...valid(email), role: 'admin', email_verified: true });
    expect(res.status).toBe(200);
    expect((await res.json()).message).toContain('確認メール');

    const early = await client().login(email, 'password-123');
    expect(early.status).toBe(422);
    expect((await early.json()).message).toContain('メールアドレスの確認が完了していません');

    const mail = await smtp.waitFor(smtp.to(email));
    expect(mail.subject).toBe('【ライセンスストア】メールアドレスの確認をお願いします');
    // Greeted by the registered name (issue 35 item 6): it reads as a name.
    expect(mail.html).toContain('<p>山田 太郎 様</p>');
    const link = linkIn(mail.text, '/api/users/registration/verify/');
    expect((await t.app.request(link)).headers.get('location')).toBe('/users/registration/email-verified');
    // A second click (or a mail scanner's first) still lands on "verified".
    expect((await t.app.request(link)).headers.get('location')).toBe('/users/registration/email-verified');

    const login = await client().login(email, 'password-123');
    expect(login.status).toBe(200);
    const me = (await login.json()).users[0];
    expect(me).toMatchObject({ email, role: 'user', affiliations: 4, affiliation_name: '〇〇市消防局', distribution: true });
  });

  it('answers a taken address (in any case) exactly like a new one, and tells its owner', async () => {
    const email = unique('taken');
    const first = await client().post('/api/users/registration', valid(email));
    const again = await client().post('/api/users/registration', valid(email.toUpperCase()));
    expect(again.status).toBe(first.status);
    expect(await again.json()).toEqual(
      await first
        .clone()
        .json()
        .catch(() => ({ message: expect.any(String) })),
    );
    const notice = await smtp.waitFor(
      (m) => smtp.to(email)(m) && m.subject === '【ライセンスストア】このメールアドレスは登録済みです',
    );
    expect(notice.text).toContain('/reset-password/');
    const rows = await t.runtime.deps.orm.em.fork().execute('select count(*)::int as n from users where email = ?', [email]);
    expect(rows[0]?.n).toBe(1);
  });

  it('sends expired, forged and superseded links to the failure page', async () => {
    const email = unique('expired');
    await client().post('/api/users/registration', valid(email));
    const mail = await smtp.waitFor(smtp.to(email));
    const link = linkIn(mail.text, '/api/users/registration/verify/');

    expect((await t.app.request('/api/users/registration/verify/forged-token-forged-token-forged')).headers.get('location')).toBe(
      '/users/registration/email-verify-failed?reason=invalid',
    );
    expect((await t.app.request('/api/users/registration/verify/%00')).headers.get('location')).toContain('email-verify-failed');

    await t.runtime.deps.orm.em
      .fork()
      .execute(
        "update account_tokens set expires_at = now() - interval '1 minute' where user_id = (select id from users where email = ?)",
        [email],
      );
    expect((await t.app.request(link)).headers.get('location')).toBe('/users/registration/email-verify-failed?reason=expired');

    // A new link can be requested; the same answer is given for an unknown address.
    const resend = await client().post('/api/users/registration/resend', { email });
    const unknown = await client().post('/api/users/registration/resend', { email: unique('nobody') });
    expect(resend.status).toBe(200);
    expect(await unknown.json()).toEqual(await resend.json());
    const fresh = await smtp.waitFor((m) => smtp.to(email)(m) && linkIn(m.text, '/api/users/registration/verify/') !== link);
    expect((await t.app.request(linkIn(fresh.text, '/api/users/registration/verify/'))).headers.get('location')).toBe(
      '/users/registration/email-verified',
    );
  });

  it('limits mail to one mailbox whoever asks: five an hour, from any number of addresses', async () => {
    const email = unique('resend');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await client().post('/api/users/registration/resend', { email })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    // The same mailbox through another mail-sending call is limited too.
    expect((await client().post('/api/forgot-password', { email })).status).toBe(429);
  });
});

describe('profile: GET/POST/PUT /api/users/{id}', () => {
  it('lets members read only their own record', async () => {
    const a = await signedInMember();
    const b = await signedInMember();
    expect((await a.member.get(`/api/users/${a.id}`)).status).toBe(200);
    const mine = (await (await a.member.get(`/api/users/${a.id}`)).json()).user;
    expect(mine).toMatchObject({ id: a.id, email: a.email, last_name: '山田', affiliations: 4, pending_email: null });
    expect((await a.member.get(`/api/users/${b.id}`)).status).toBe(403);
    expect((await a.member.put(`/api/users/${b.id}`, { ...valid(b.email), last_name: '乗っ取り' })).status).toBe(403);
    expect((await client().get(`/api/users/${a.id}`)).status).toBe(401);
    const admin = client();
    await admin.login('admin@example.jp', 'admin-pass-123');
    expect((await admin.get(`/api/users/${a.id}`)).status).toBe(200);
    expect((await admin.get('/api/users/00000000-0000-0000-0000-000000000000')).status).toBe(404);
  });

  it('validates an edit, saves it, and ignores fields a member may not set', async () => {
    const a = await signedInMember();
    const edit = {
      ...valid(a.email),
      last_name: '佐藤',
      affiliations: 6,
      affiliation_other: '民間',
      affiliation_name: '〇〇社',
      distribution: false,
    };
    const check = await a.member.post(`/api/users/${a.id}`, edit);
    expect(check.status).toBe(200);
    expect((await check.json()).user).toMatchObject({ last_name: '佐藤', affiliations: 6 });
    const bad = await a.member.post(`/api/users/${a.id}`, { ...edit, first_name: '', email_confirmation: 'typo@example.jp' });
    expect(bad.status).toBe(422);
    // Every error at once: the mismatched confirmation is not held back until the name is fixed.
    expect((await bad.json()).errors).toEqual({
      first_name: ['名を入力してください。'],
      email_confirmation: ['メールアドレス（確認）がメールアドレスと一致しません。'],
    });

    const saved = await a.member.put(`/api/users/${a.id}`, { ...edit, role: 'admin', email_verified: false });
    expect(saved.status).toBe(200);
    const body = await saved.json();
    expect(body.message).toBe('会員情報を更新しました。');
    expect(body.user).toMatchObject({
      last_name: '佐藤',
      affiliations: 6,
      affiliation_other: '民間',
      distribution: false,
      role: 'user',
      email_verified: true,
    });
  });

  it('changes the e-mail only after the new address is verified, and tells the old one', async () => {
    const a = await signedInMember();
    const newEmail = unique('changed');
    const res = await a.member.put(`/api/users/${a.id}`, {
      ...valid(newEmail),
      password: undefined,
      current_password: a.password,
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.message).toContain('確認メール');
    expect(body.user).toMatchObject({ email: a.email, pending_email: newEmail });

    const notice = await smtp.waitFor(
      (m) => smtp.to(a.email)(m) && m.subject === '【ライセンスストア】メールアドレス変更のお知らせ',
    );
    expect(notice.text).toContain(newEmail);
    const confirm = await smtp.waitFor(smtp.to(newEmail));
    expect((await client().login(a.email, a.password)).status).toBe(200);

    const link = linkIn(confirm.text, '/api/users/email-change/verify/');
    expect((await t.app.request(link)).headers.get('location')).toBe('/users/registration/email-verified?change=1');
    expect((await t.app.request(link)).headers.get('location')).toBe(
      '/users/registration/email-verify-failed?change=1&reason=used',
    );
    expect((await client().login(newEmail, a.password)).status).toBe(200);
    expect((await client().login(a.email, a.password)).status).toBe(422);
  });

  it('answers an address another account uses exactly like a free one, and tells that owner instead', async () => {
    const a = await signedInMember();
    const b = await signedInMember();
    const asked = new Date();
    const taken = await a.member.put(`/api/users/${a.id}`, { ...valid(b.email), current_password: a.password });
    const free = await a.member.put(`/api/users/${a.id}`, { ...valid(unique('free')), current_password: a.password });
    expect(taken.status).toBe(200);
    expect(free.status).toBe(200);
    const [takenBody, freeBody] = [await taken.json(), await free.json()];
    expect(takenBody.message).toBe(freeBody.message);
    expect(Object.keys(takenBody.user).sort()).toEqual(Object.keys(freeBody.user).sort());
    const notice = await smtp.waitFor(
      (m) => smtp.to(b.email)(m) && m.subject === '【ライセンスストア】メールアドレスの利用についてのお知らせ',
    );
    expect(notice.text).not.toContain('/verify/');
    // The taken address never gets a confirmation link (every mail of both requests sent), and b keeps its address.
    await settled(t.runtime.deps, 'the mails of both e-mail changes', { since: asked });
    expect(smtp.messages.filter((m) => smtp.to(b.email)(m) && (m.text ?? '').includes('/email-change/verify/'))).toEqual([]);
    expect((await client().login(b.email, b.password)).status).toBe(200);
  });

  it('greets an address that is not verified yet without the text its requester typed', async () => {
    const a = await signedInMember();
    const stranger = unique('stranger');
    await a.member.put(`/api/users/${a.id}`, {
      ...valid(stranger),
      last_name: '今すぐ',
      first_name: 'http://evil.example',
      current_password: a.password,
    });
    const confirm = await smtp.waitFor(smtp.to(stranger));
    expect(confirm.text).toContain('お客様');
    expect(confirm.text).not.toContain('evil.example');
    expect(confirm.text).not.toContain('今すぐ');
  });
});

describe('PUT /api/users/{id}/password', () => {
  it('needs the current password and ends the other sessions', async () => {
    const a = await signedInMember();
    const other = client();
    await other.login(a.email, a.password);

    const wrong = await a.member.put(`/api/users/${a.id}/password`, {
      old_password: 'not-it-123',
      new_password: 'brand-new-123',
      new_password_confirmation: 'brand-new-123',
    });
    expect(wrong.status).toBe(422);
    expect((await wrong.json()).errors.old_password).toEqual(['現在のパスワードが正しくありません。']);

    const mismatch = await a.member.put(`/api/users/${a.id}/password`, {
      old_password: a.password,
      new_password: 'brand-new-123',
      new_password_confirmation: 'brand-new-456',
    });
    expect(mismatch.status).toBe(422);

    const ok = await a.member.put(`/api/users/${a.id}/password`, {
      old_password: a.password,
      new_password: 'brand-new-123',
      new_password_confirmation: 'brand-new-123',
    });
    expect(ok.status).toBe(200);
    expect((await (await a.member.get('/api/login')).json()).users).toHaveLength(1);
    expect((await (await other.get('/api/login')).json()).users).toHaveLength(0);
    expect((await client().login(a.email, 'brand-new-123')).status).toBe(200);
    expect((await client().login(a.email, a.password)).status).toBe(422);
  });

  it('reports a wrong-looking form all at once: empty current password and mismatched confirmation together', async () => {
    const a = await signedInMember();
    const res = await a.member.put(`/api/users/${a.id}/password`, {
      old_password: '',
      new_password: 'brand-new-123',
      new_password_confirmation: 'brand-new-456',
    });
    expect(res.status).toBe(422);
    expect((await res.json()).errors).toEqual({
      old_password: ['現在のパスワードを入力してください。'],
      new_password_confirmation: ['新しいパスワード（確認）が新しいパスワードと一致しません。'],
    });
  });

  it("refuses someone else's password", async () => {
    const a = await signedInMember();
    const b = await signedInMember();
    const res = await a.member.put(`/api/users/${b.id}/password`, {
      old_password: b.password,
      new_password: 'brand-new-123',
      new_password_confirmation: 'brand-new-123',
    });
    expect(res.status).toBe(403);
  });
});

describe('forgot and reset password', () => {
  it('answers the same for known and unknown addresses, and resets once with the e-mailed token', async () => {
    const a = await signedInMember();
    const known = await client().post('/api/forgot-password', { email: a.email });
    const unknown = await client().post('/api/forgot-password', { email: unique('ghost') });
    expect(known.status).toBe(200);
    expect(await unknown.json()).toEqual(await known.json());

    const mail = await smtp.waitFor((m) => smtp.to(a.email)(m) && m.subject === '【ライセンスストア】パスワード再設定のご案内');
    const token = linkIn(mail.text, '/reset-password/').split('/').pop() as string;
    // The link carries the address it was sent to, so the form starts filled in (as Laravel's do).
    expect(mail.text).toContain(`/reset-password/${token}?email=${encodeURIComponent(a.email)}`);
    expect(mail.html).toContain(`/reset-password/${token}?email=${encodeURIComponent(a.email)}`);

    // A different address is told so on its field, not reported as an expired link; the link stays usable.
    const wrongEmail = await client().post('/api/reset-password', {
      email: unique('other'),
      password: 'reset-pass-123',
      password_confirmation: 'reset-pass-123',
      token,
    });
    expect(wrongEmail.status).toBe(422);
    const mismatch = await wrongEmail.json();
    expect(Object.keys(mismatch.errors)).toEqual(['email']);
    expect(mismatch.errors.email[0]).toContain('再設定のご案内をお送りしたメールアドレスと一致しません');
    expect(mismatch.message).not.toContain('有効期限');

    // Every error at once: a malformed address and a mismatched confirmation together.
    const both = await client().post('/api/reset-password', {
      email: 'not-an-address',
      password: 'reset-pass-123',
      password_confirmation: 'reset-pass-456',
      token,
    });
    expect((await both.json()).errors).toEqual({
      email: ['メールアドレスの形式が正しくありません。'],
      password_confirmation: ['パスワード（確認）がパスワードと一致しません。'],
    });

    const reset = await client().post('/api/reset-password', {
      email: a.email,
      password: 'reset-pass-123',
      password_confirmation: 'reset-pass-123',
      token,
    });
    expect(reset.status).toBe(200);
    expect((await (await a.member.get('/api/login')).json()).users).toHaveLength(0);
    expect((await client().login(a.email, 'reset-pass-123')).status).toBe(200);

    const reuse = await client().post('/api/reset-password', {
      email: a.email,
      password: 'again-pass-123',
      password_confirmation: 'again-pass-123',
      token,
    });
    expect(reuse.status).toBe(422);
    expect(await reuse.json()).toEqual({
      code: 'reset_link_used',
      message: 'このリンクは使用済みです。パスワードを再設定するには、もう一度お手続きください。',
      errors: { token: ['このリンクは使用済みです。パスワードを再設定するには、もう一度お手続きください。'] },
    });
    // The reset page asks before the member types a password; asking uses nothing.
    expect(await (await client().get(`/api/reset-password/${token}`)).json()).toMatchObject({
      valid: false,
      code: 'reset_link_used',
    });
  });

  it('refuses expired and forged tokens', async () => {
    const a = await signedInMember();
    await client().post('/api/forgot-password', { email: a.email });
    const mail = await smtp.waitFor((m) => smtp.to(a.email)(m) && m.subject === '【ライセンスストア】パスワード再設定のご案内');
    const token = linkIn(mail.text, '/reset-password/').split('/').pop() as string;
    await t.runtime.deps.orm.em
      .fork()
      .execute(
        "update account_tokens set expires_at = now() - interval '1 second' where purpose = 'reset-password' and user_id = ?",
        [a.id],
      );
    const body = { email: a.email, password: 'reset-pass-123', password_confirmation: 'reset-pass-123' };
    const expired = await client().post('/api/reset-password', { ...body, token });
    expect(expired.status).toBe(422);
    expect(await expired.json()).toMatchObject({
      code: 'reset_link_expired',
      message: 'このリンクの有効期限が切れています。パスワードを再設定するには、もう一度お手続きください。',
    });
    expect(await (await client().get(`/api/reset-password/${token}`)).json()).toMatchObject({
      valid: false,
      code: 'reset_link_expired',
      message: 'このリンクの有効期限が切れています。パスワードを再設定するには、もう一度お手続きください。',
    });
    const unknown = await client().post('/api/reset-password', { ...body, token: 'x'.repeat(43) });
    expect(unknown.status).toBe(422);
    expect(await unknown.json()).toMatchObject({ code: 'reset_link_invalid', errors: { token: [expect.any(String)] } });
    expect(await (await client().get(`/api/reset-password/${'x'.repeat(43)}`)).json()).toMatchObject({
      valid: false,
      code: 'reset_link_invalid',
    });
    expect((await client().post('/api/reset-password', { ...body, token: 'forged' })).status).toBe(422);
    expect((await client().post('/api/reset-password', { ...body, token: 12 })).status).toBe(422);
    expect((await client().login(a.email, a.password)).status).toBe(200);
  });
});

describe('unverified users created directly', () => {
  it('keep the verification rule', async () => {
    await aMember(t.runtime.deps.orm, {
      email: 'direct@example.jp',
      password: 'direct-123',
      lastName: 'x',
      firstName: 'y',
      emailVerified: false,
    });
    expect((await client().login('direct@example.jp', 'direct-123')).status).toBe(422);
  });
});

describe('POST /api/forgot-password timing', () => {
  it('takes the same path for known and unknown addresses: medians over 50 + 50 calls agree', async () => {
    const known: string[] = [];
    await transact(t.runtime.deps.orm.em as Em, async (tx) => {
      for (let i = 0; i < 50; i++) {
        const email = unique(`timing${i}`);
        known.push(email);
        await aMemberIn(tx, { email, password: 'timing-pass-1', lastName: '時間', firstName: `${i}`, emailVerified: true });
      }
    });
    const time = async (email: string) => {
      const started = performance.now();
      const res = await client().post('/api/forgot-password', { email });
      expect(res.status).toBe(200);
      return performance.now() - started;
    };
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    const [knownTimes, unknownTimes]: [number[], number[]] = [[], []];
    for (let i = 0; i < 50; i++) {
      knownTimes.push(await time(known[i] as string));
      unknownTimes.push(await time(unique(`nobody${i}`)));
    }
    const [a, b] = [median(knownTimes), median(unknownTimes)];
    expect(Math.abs(a - b), `known ${a.toFixed(2)} ms, unknown ${b.toFixed(2)} ms`).toBeLessThanOrEqual(
      1 + 0.25 * Math.min(a, b),
    );
  }, 60_000);
});
