import { createHash } from 'node:crypto';
import { APIError } from 'better-auth/api';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { LIMITS } from '../../config/limits.ts';
import type { AppEnv, SessionUser } from '../../http/context.ts';
import { AppError, validationError } from '../../http/errors.ts';
import { requireUser, signedInUser } from '../../http/guards.ts';
import { jsonInput, parseInput, readJson } from '../../http/validate.ts';
import { NOT_VERIFIED_MESSAGE, USER_NOT_VERIFIED } from './auth.ts';
import { meDocs, signInDocs } from './docs.ts';
import { reauthenticate } from './reauth.ts';
import { PasskeyLoginInput, PasskeyOptionsInput, PasskeyRegistrationInput } from './schemas.ts';
import { codeOf, passkeySignInOptions, signInWithPasskey } from './sign-in.ts';
import { signInClient, withCookies } from './sign-in-client.ts';
import { listPasskeys, noteTwoFactorChange, storedRecoveryCode, WRONG_CODE } from './two-factor.ts';
import { checkCode, forwardCookies } from './two-factor-routes.ts';

const PASSKEY_FAILED = 'パスキーを登録できませんでした。もう一度お試しください。';
const PASSKEY_NOT_FOUND = 'パスキーが見つかりませんでした。';
const REAUTHENTICATE = 'パスキーを登録するには、現在のパスワードを入力してください。';
const REAUTHENTICATE_WITH_CODE =
  'パスキーを登録するには、現在のパスワードと、認証アプリの確認コード（またはリカバリーコード）を入力してください。';
const WRONG_SECOND_FACTOR = '確認コードまたはリカバリーコードが正しくありません。';
/** How long a re-authentication lets one passkey be registered: the plugin's challenge lives as long. */
const REAUTH_SECONDS = 300;

/** 403 `reauthentication_required`, naming what is missing. */
const reauthenticationRequired = (me: SessionUser, missing: string[]) =>
  new AppError('forbidden', me.twoFactorEnabled ? REAUTHENTICATE_WITH_CODE : REAUTHENTICATE, {
    details: { code: 'reauthentication_required' },
    errors: Object.fromEntries(
      missing.map((field) => [
        field,
        [field === 'password' ? '現在のパスワードを入力してください。' : '確認コードを入力してください。'],
      ]),
    ),
  });

/** The identifier of the one registration a re-authenticated session may make (the session's token, hashed). */
const reauthIdentifier = (me: SessionUser) =>
  `passkey-reauth:${createHash('sha256').update(me.sessionToken).digest('base64url')}`;

/** A current TOTP code, or one of the recovery codes (used up), as two-factor set-up asks. */
async function checkSecondFactor(c: Context<AppEnv>, me: SessionUser, code: string) {
  const digits = code.replace(/[\s-]/g, '').replace(/[０-９]/g, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0));
  try {
    if (/^\d{6}$/.test(digits)) return await checkCode(c, digits);
    const recoveryCode = await storedRecoveryCode(c.var.deps.auth, me.id, code);
    await c.var.deps.auth.api.verifyBackupCode({
      body: { code: recoveryCode, disableSession: true },
      headers: c.req.raw.headers,
    });
  } catch (error) {
    const wrong = error instanceof APIError || (error instanceof AppError && error.kind === 'validation');
    if (!wrong) throw error;
    // A wrong code is a guess at the second factor: it counts like a wrong password.
    await c.var.deps.rateLimit.count(LIMITS.signInFailuresPerAccount, me.email);
    throw validationError({ code: [/^\d{6}$/.test(digits) ? WRONG_CODE : WRONG_SECOND_FACTOR] }, WRONG_SECOND_FACTOR);
  }
}

/**
 * The current password (and the second factor when enrolled) before a registration challenge is
 * issued: a session alone must not add a passkey, which would outlive the password and sign in alone.
 */
async function reauthenticateForPasskey(c: Context<AppEnv>, me: SessionUser) {
  const body = c.req.header('content-type') ? await readJson(c) : {};
  const { password, code } = parseInput(PasskeyOptionsInput, body);
  const missing = [...(password ? [] : ['password']), ...(me.twoFactorEnabled && !code ? ['code'] : [])];
  if (missing.length > 0) throw reauthenticationRequired(me, missing);
  await c.var.deps.rateLimit.hit(LIMITS.passwordChangesPerMember, me.id);
  await reauthenticate(c, me, password ?? '', 'password');
  if (me.twoFactorEnabled) await checkSecondFactor(c, me, code ?? '');
}

/** The member's passkeys (docs/decisions/0027-two-factor-and-passkeys.md). */
export const passkeyRoutes = new Hono<AppEnv>()
  .get('/me/passkeys', meDocs.passkeys, requireUser, async (c) =>
    c.json({ passkeys: await listPasskeys(c.var.deps.orm, signedInUser(c).id) }),
  )
  .post('/me/passkeys/options', meDocs.passkeyOptions, requireUser, async (c) => {
    const { deps } = c.var;
    const me = signedInUser(c);
    await reauthenticateForPasskey(c, me);
    const { headers, response } = await deps.auth.api.generatePasskeyRegistrationOptions({
      headers: c.req.raw.headers,
      query: {},
      returnHeaders: true,
    });
    const context = await deps.auth.$context;
    await context.internalAdapter.deleteVerificationByIdentifier(reauthIdentifier(me));
    await context.internalAdapter.createVerificationValue({
      identifier: reauthIdentifier(me),
      value: me.id,
      expiresAt: new Date(Date.now() + REAUTH_SECONDS * 1000),
    });
    const res = c.json({ options: response });
    forwardCookies(headers, res.headers);
    return res;
  })
  .post('/me/passkeys', meDocs.addPasskey, requireUser, async (c) => {
    const { deps } = c.var;
    const me = signedInUser(c);
    const input = await jsonInput(c, PasskeyRegistrationInput);
    // Only after this session re-authenticated (once per registration).
    const granted = await (await deps.auth.$context).internalAdapter.consumeVerificationValue(reauthIdentifier(me));
    if (granted?.value !== me.id) throw reauthenticationRequired(me, []);
    let headers: Headers;
    try {
      ({ headers } = await deps.auth.api.verifyPasskeyRegistration({
        body: { response: input.response, name: input.name || undefined },
        headers: c.req.raw.headers,
        returnHeaders: true,
      }));
    } catch (error) {
      if (codeOf(error) === USER_NOT_VERIFIED) throw validationError({ response: [NOT_VERIFIED_MESSAGE] }, NOT_VERIFIED_MESSAGE);
      // A forged, replayed or foreign answer is the client's, never a 500.
      if (error instanceof APIError) throw validationError({ response: [PASSKEY_FAILED] }, PASSKEY_FAILED);
      throw error;
    }
    await noteTwoFactorChange(deps.orm, me.id, 'passkey-added');
    const res = c.json({ passkeys: await listPasskeys(deps.orm, me.id), message: 'パスキーを登録しました。' });
    forwardCookies(headers, res.headers);
    return res;
  })
  .delete('/me/passkeys/:id{[0-9a-f-]+}', meDocs.removePasskey, requireUser, async (c) => {
    const { deps } = c.var;
    const me = signedInUser(c);
    try {
      await deps.auth.api.deletePasskey({ body: { id: c.req.param('id') }, headers: c.req.raw.headers });
    } catch (error) {
      if (error instanceof APIError) throw new AppError('not_found', PASSKEY_NOT_FOUND);
      throw error;
    }
    await noteTwoFactorChange(deps.orm, me.id, 'passkey-removed');
    return c.json({ passkeys: await listPasskeys(deps.orm, me.id), message: 'パスキーを削除しました。' });
  });

/** Signing in with a passkey: it stands for both factors, so the device must have verified its user. */
export const passkeySignInRoutes = new Hono<AppEnv>()
  .post('/login/passkey/options', signInDocs.passkeyOptions, async (c) => {
    const { options, cookies } = await passkeySignInOptions(c.var.deps, signInClient(c));
    return withCookies(c.json({ options }), cookies);
  })
  .post('/login/passkey', signInDocs.passkey, async (c) => {
    const { response } = await jsonInput(c, PasskeyLoginInput);
    const { user, cookies } = await signInWithPasskey(c.var.deps, response, signInClient(c));
    return withCookies(c.json({ users: [user] }), cookies);
  });
