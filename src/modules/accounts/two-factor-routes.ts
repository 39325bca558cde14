import type { Context } from 'hono';
import { Hono } from 'hono';
import { LIMITS } from '../../config/limits.ts';
import type { AppEnv } from '../../http/context.ts';
import { AppError, validationError } from '../../http/errors.ts';
import { hasStaffRole, requireUser, signedInUser } from '../../http/guards.ts';
import { jsonInput } from '../../http/validate.ts';
import { meDocs, signInDocs } from './docs.ts';
import { TwoFactorCodeInput, TwoFactorDisableInput, TwoFactorLoginInput, TwoFactorPasswordInput } from './schemas.ts';
import { codeOf, signInWithSecondFactor } from './sign-in.ts';
import { signInClient, withCookies } from './sign-in-client.ts';
import { ADMIN_CANNOT_DISABLE, checkCurrentPassword, noteTwoFactorChange, twoFactorStatus, WRONG_CODE } from './two-factor.ts';

/** Copies better-auth's Set-Cookie headers onto our answer. */
export function forwardCookies(from: Headers, to: Headers) {
  for (const cookie of from.getSetCookie()) to.append('Set-Cookie', cookie);
}

const ALREADY_ENABLED = '二段階認証はすでに有効です。';
const NOT_ENABLED = '二段階認証が有効になっていません。';
const SETUP_FIRST = '先に「設定を始める」から認証アプリの登録を行ってください。';

/** A wrong TOTP code from a signed-in member (setup, disable): answered 422 on `code`. */
/** 422 unless `code` is the signed-in member's current TOTP code. */
export async function checkCode(c: Context<AppEnv>, code: string) {
  try {
    await c.var.deps.auth.api.verifyTOTP({ body: { code }, headers: c.req.raw.headers });
  } catch (error) {
    if (codeOf(error) === 'INVALID_CODE') throw validationError({ code: [WRONG_CODE] }, WRONG_CODE);
    if (codeOf(error) === 'TOTP_NOT_ENABLED') throw new AppError('conflict', NOT_ENABLED);
    throw error;
  }
}

/** The member's own two-factor settings (docs/decisions/0027-two-factor-and-passkeys.md). */
export const twoFactorRoutes = new Hono<AppEnv>()
  .get('/me/two-factor', meDocs.twoFactor, requireUser, async (c) =>
    c.json(await twoFactorStatus(c.var.deps.orm, c.var.deps.auth, signedInUser(c).id)),
  )
  .post('/me/two-factor/setup', meDocs.setup, requireUser, async (c) => {
    const { deps } = c.var;
    const me = signedInUser(c);
    const { password } = await jsonInput(c, TwoFactorPasswordInput);
    // Another way to try current passwords: the password form's limit, shared.
    await deps.rateLimit.hit(LIMITS.passwordChangesPerMember, me.id);
    if (me.twoFactorEnabled) throw new AppError('conflict', ALREADY_ENABLED);
    await checkCurrentPassword(deps.orm, me.id, password);
    const setup = await deps.auth.api.enableTwoFactor({ body: { password, method: 'totp' }, headers: c.req.raw.headers });
    const totpURI = 'totpURI' in setup ? setup.totpURI : '';
    return c.json({ totp_uri: totpURI, secret: new URL(totpURI).searchParams.get('secret') ?? '' });
  })
  .post('/me/two-factor/enable', meDocs.enable, requireUser, async (c) => {
    const { deps } = c.var;
    const me = signedInUser(c);
    const { code } = await jsonInput(c, TwoFactorCodeInput);
    await deps.rateLimit.hit(LIMITS.passwordChangesPerMember, me.id);
    if (me.twoFactorEnabled) throw new AppError('conflict', ALREADY_ENABLED);
    let headers: Headers;
    try {
      ({ headers } = await deps.auth.api.verifyTOTP({ body: { code }, headers: c.req.raw.headers, returnHeaders: true }));
    } catch (error) {
      if (codeOf(error) === 'INVALID_CODE') throw validationError({ code: [WRONG_CODE] }, WRONG_CODE);
      if (codeOf(error) === 'TOTP_NOT_ENABLED') throw new AppError('conflict', SETUP_FIRST);
      throw error;
    }
    const { backupCodes } = await deps.auth.api.viewBackupCodes({ body: { userId: me.id } });
    await noteTwoFactorChange(deps.orm, me.id, 'enabled');
    // better-auth replaced the session (its cookie, and so the CSRF token, change with it).
    const res = c.json({ recovery_codes: backupCodes, message: '二段階認証を有効にしました。' });
    forwardCookies(headers, res.headers);
    return res;
  })
  .post('/me/two-factor/recovery-codes', meDocs.recoveryCodes, requireUser, async (c) => {
    const { deps } = c.var;
    const me = signedInUser(c);
    const { password } = await jsonInput(c, TwoFactorPasswordInput);
    await deps.rateLimit.hit(LIMITS.passwordChangesPerMember, me.id);
    if (!me.twoFactorEnabled) throw new AppError('conflict', NOT_ENABLED);
    await checkCurrentPassword(deps.orm, me.id, password);
    const { backupCodes } = await deps.auth.api.generateBackupCodes({ body: { password }, headers: c.req.raw.headers });
    await noteTwoFactorChange(deps.orm, me.id, 'recovery-codes');
    return c.json({
      recovery_codes: backupCodes,
      message: '新しいリカバリーコードを発行しました。これまでのコードは使えません。',
    });
  })
  .delete('/me/two-factor', meDocs.disable, requireUser, async (c) => {
    const { deps } = c.var;
    const me = signedInUser(c);
    const { password, code } = await jsonInput(c, TwoFactorDisableInput);
    await deps.rateLimit.hit(LIMITS.passwordChangesPerMember, me.id);
    if (hasStaffRole(me)) throw new AppError('conflict', ADMIN_CANNOT_DISABLE);
    if (!me.twoFactorEnabled) throw new AppError('conflict', NOT_ENABLED);
    await checkCurrentPassword(deps.orm, me.id, password);
    await checkCode(c, code);
    const { headers } = await deps.auth.api.disableTwoFactor({
      body: { password },
      headers: c.req.raw.headers,
      returnHeaders: true,
    });
    await noteTwoFactorChange(deps.orm, me.id, 'disabled');
    const res = c.json({ message: '二段階認証を無効にしました。' });
    forwardCookies(headers, res.headers);
    return res;
  });

/** The second step of signing in: a code or a recovery code (passkeys: passkey-routes.ts). */
export const signInStepRoutes = new Hono<AppEnv>().post('/login/two-factor', signInDocs.twoFactor, async (c) => {
  const input = await jsonInput(c, TwoFactorLoginInput);
  const { user, cookies } = await signInWithSecondFactor(c.var.deps, input, signInClient(c));
  return withCookies(c.json({ users: [user] }), cookies);
});
