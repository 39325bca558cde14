import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db as kysely } from '../../src/db/kysely.ts';
import type { Em } from '../../src/db/orm.ts';
import { aMember } from '../support/factories.ts';

import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { totp } from '../support/two-factor.ts';

let t: TestRuntime;
let smtp: TestSmtp;
let n = 0;
/** Each test from its own network, so one test's throttles never touch another's. */
const client = () => new TestClient(t.app, `10.91.${++n}.1`);
const PASSWORD = 'member-pass-123';

async function member(email: string) {
  await aMember(t.runtime.deps.orm, { email, password: PASSWORD, lastName: '鍵', firstName: '太郎', emailVerified: true });
  const c = client();
  expect((await c.login(email, PASSWORD)).status).toBe(200);
  return c;
}

const db = () => kysely(t.runtime.deps.orm.em.fork() as Em);
const verificationRows = async () =>
  Number(
    (
      await db()
        .selectFrom('verifications')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestRuntime({ mode: 'all', smtpUrl: smtp.url });
});
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

/** A passkey row as the plugin stores one (the key itself plays no part here). */
async function addPasskey(userId: string, name: string) {
  await db()
    .insertInto('passkeys')
    .values({
      id: randomUUID(),
      name,
      public_key: 'cHVibGljLWtleQ',
      user_id: userId,
      credential_id: randomUUID(),
      counter: 0,
      device_type: 'singleDevice',
      backed_up: false,
      transports: 'internal',
      created_at: new Date().toISOString(),
    })
    .execute();
}

describe('adding a passkey re-authenticates', () => {
  it('gives a registration challenge only for the current password, asking for user verification', async () => {
    const c = await member('pk-reauth@example.jp');
    const bare = await c.request('POST', '/api/me/passkeys/options');
    expect(bare.status).toBe(403);
    expect(await bare.json()).toMatchObject({ code: 'reauthentication_required', errors: { password: [expect.any(String)] } });
    const empty = await c.post('/api/me/passkeys/options', {});
    expect(empty.status).toBe(403);
    expect((await empty.json()).code).toBe('reauthentication_required');
    const wrong = await c.post('/api/me/passkeys/options', { password: 'not-my-pass-1' });
    expect(wrong.status).toBe(422);
    expect((await wrong.json()).errors.password[0]).toBe('現在のパスワードが正しくありません。');

    // A session signed in days ago is no obstacle: the password is the proof.
    await db()
      .updateTable('sessions')
      .set({ created_at: new Date(Date.now() - 3 * 24 * 3600 * 1000).toISOString() })
      .where('user_id', '=', (await (await c.get('/api/login')).json()).users[0].id)
      .execute();
    const right = await c.post('/api/me/passkeys/options', { password: PASSWORD });
    expect(right.status).toBe(200);
    const { options } = await right.json();
    expect(options.authenticatorSelection.userVerification).toBe('required');
    expect(typeof options.challenge).toBe('string');
  });

  it('refuses a registration from a session that did not re-authenticate (a stolen cookie)', async () => {
    const owner = await member('pk-stolen@example.jp');
    // The thief holds another session of the same account (copied cookie), no password.
    const thief = client();
    thief.cookies.clear();
    for (const [name, value] of owner.cookies) thief.cookies.set(name, value);
    const registration = await thief.post('/api/me/passkeys', { response: { id: 'x', response: {} } });
    expect(registration.status).toBe(403);
    expect((await registration.json()).code).toBe('reauthentication_required');
    expect((await thief.request('POST', '/api/me/passkeys/options')).status).toBe(403);
    // better-auth's own passkey endpoints are not served at all.
    for (const path of [
      '/api/auth/passkey/generate-register-options',
      '/api/auth/passkey/verify-registration',
      '/api/auth/passkey/generate-authenticate-options',
    ]) {
      expect((await thief.get(path)).status, path).toBe(404);
      expect((await thief.post(path, {})).status, path).toBe(404);
    }
    // A re-authentication allows one registration attempt: a failed one (here: its challenge lost) uses it up.
    expect((await owner.post('/api/me/passkeys/options', { password: PASSWORD })).status).toBe(200);
    const challengeCookie = [...owner.cookies.keys()].find((name) => name.includes('passkey'));
    expect(challengeCookie).toBeDefined();
    owner.cookies.delete(challengeCookie ?? '');
    const forged = await owner.post('/api/me/passkeys', { response: { id: 'x', response: {} } });
    expect(forged.status).toBe(422);
    const again = await owner.post('/api/me/passkeys', { response: { id: 'x', response: {} } });
    expect(again.status).toBe(403);
    expect((await again.json()).code).toBe('reauthentication_required');
  });

  it('asks for a current code or a recovery code when two-factor is on, and throttles guesses', async () => {
    const c = await member('pk-2fa@example.jp');
    const { secret } = await (await c.post('/api/me/two-factor/setup', { password: PASSWORD })).json();
    const enabled = await c.post('/api/me/two-factor/enable', { code: totp(secret) });
    const { recovery_codes: codes } = await enabled.json();

    const passwordOnly = await c.post('/api/me/passkeys/options', { password: PASSWORD });
    expect(passwordOnly.status).toBe(403);
    expect(await passwordOnly.json()).toMatchObject({
      code: 'reauthentication_required',
      errors: { code: [expect.any(String)] },
    });
    const wrongCode = String((Number(totp(secret)) + 500_000) % 1_000_000).padStart(6, '0');
    const wrong = await c.post('/api/me/passkeys/options', { password: PASSWORD, code: wrongCode });
    expect(wrong.status).toBe(422);
    expect(Object.keys((await wrong.json()).errors)).toEqual(['code']);
    expect((await c.post('/api/me/passkeys/options', { password: PASSWORD, code: 'nonsense-12' })).status).toBe(422);
    expect((await c.post('/api/me/passkeys/options', { password: PASSWORD, code: codes[0] })).status).toBe(200);
    // A recovery code works once.
    expect((await c.post('/api/me/passkeys/options', { password: PASSWORD, code: codes[0] })).status).toBe(422);
    expect((await c.post('/api/me/passkeys/options', { password: PASSWORD, code: totp(secret) })).status).toBe(200);

    // The password form's limit (10 in 15 minutes per member) is shared.
    let last = 0;
    for (let i = 0; i < 10; i++)
      last = (await c.post('/api/me/passkeys/options', { password: 'not-my-pass-1', code: '000000' })).status;
    expect(last).toBe(429);
  });
});

describe('anonymous passkey sign-in options', () => {
  it('keep no row per call, ask for user verification, and stop at 60 a minute from one address', async () => {
    const anonymous = client();
    const before = await verificationRows();
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) {
      const res = await anonymous.post('/api/login/passkey/options', {});
      statuses.push(res.status);
      if (i === 0) expect((await res.json()).options.userVerification).toBe('required');
    }
    expect(statuses.slice(0, 60).every((status) => status === 200)).toBe(true);
    expect(statuses[60]).toBe(429);
    expect(statuses.slice(60).every((status) => status === 429)).toBe(true);
    expect(await verificationRows()).toBe(before);
    // Another address is not held up by the first.
    expect((await client().post('/api/login/passkey/options', {})).status).toBe(200);
  });

  it('refuses a sign-in answer with no challenge, or one used already, without a 5xx', async () => {
    const c = client();
    const before = await verificationRows();
    expect((await c.post('/api/login/passkey/options', {})).status).toBe(200);
    const answer = { response: { id: randomUUID(), rawId: 'x', type: 'public-key', response: { clientDataJSON: 'x' } } };
    const first = await c.post('/api/login/passkey', answer);
    expect(first.status).toBe(422);
    const second = await c.post('/api/login/passkey', answer);
    expect(second.status).toBe(422);
    // The challenge went back to the plugin as a row once, and it consumed it.
    expect(await verificationRows()).toBe(before);
  });
});

describe('a password change and a password reset', () => {
  it('keeps the passkeys on a change and names them in the notice; a reset removes them all, ends every session and says so', async () => {
    const email = 'pk-reset@example.jp';
    const c = await member(email);
    const me = (await (await c.get('/api/login')).json()).users[0];
    await addPasskey(me.id, '仕事用パソコン');
    await addPasskey(me.id, 'スマートフォン');

    const changed = await c.put(`/api/users/${me.id}/password`, {
      old_password: PASSWORD,
      new_password: 'second-pass-456',
      new_password_confirmation: 'second-pass-456',
    });
    expect(changed.status).toBe(200);
    expect((await (await c.get('/api/me/passkeys')).json()).passkeys).toHaveLength(2);
    const notice = await smtp.waitFor(
      (m) => smtp.to(email)(m) && (m.text ?? '').includes('パスワード変更画面から変更されました'),
    );
    expect(notice.text).toContain('登録済みのパスキー（「仕事用パソコン」、「スマートフォン」）は、引き続きログインに使えます');

    const other = client();
    expect((await other.login(email, 'second-pass-456')).status).toBe(200);
    await client().post('/api/forgot-password', { email });
    const link = await smtp.waitFor((m) => smtp.to(email)(m) && (m.subject ?? '').includes('パスワード再設定のご案内'));
    const token = /reset-password\/([\w-]+)/.exec(link.text ?? '')?.[1];
    const reset = await client().post('/api/reset-password', {
      token,
      email,
      password: 'third-pass-789',
      password_confirmation: 'third-pass-789',
    });
    expect(reset.status).toBe(200);
    expect((await reset.json()).message).toContain('登録されていたパスキーも削除しました');
    const left = await db().selectFrom('passkeys').select('id').where('user_id', '=', me.id).execute();
    expect(left).toEqual([]);
    const sessions = await db().selectFrom('sessions').select('id').where('user_id', '=', me.id).execute();
    expect(sessions).toEqual([]);
    expect((await c.get('/api/me/passkeys')).status).toBe(401);
    expect((await other.get('/api/me/passkeys')).status).toBe(401);
    const mail = await smtp.waitFor((m) => smtp.to(email)(m) && (m.text ?? '').includes('再設定のリンクから再設定されました'));
    expect(mail.text).toContain('すべての端末でログアウトしました');
    expect(mail.text).toContain('登録されていたパスキー（「仕事用パソコン」、「スマートフォン」）もすべて削除しました');
  });
});
