import { APIError } from 'better-auth/api';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { LIMITS } from '../../config/limits.ts';
import type { Em } from '../../db/orm.ts';
import { transact } from '../../events/outbox.ts';
import { addressBucket, clientIp } from '../../http/client-ip.ts';
import type { AppEnv } from '../../http/context.ts';
import { AppError, validationError } from '../../http/errors.ts';
import { hasAdminRole, requireUser, signedInUser } from '../../http/guards.ts';
import { jsonInput } from '../../http/validate.ts';
import { auditFailedSignIn } from './admin-sign-ins.ts';
import { getUser } from './profile.ts';
import { TwoFactorCodeInput, TwoFactorDisableInput, TwoFactorLoginInput, TwoFactorPasswordInput } from './schemas.ts';
import { recordSignIn } from './session-routes.ts';
import { noteSignInThrottled } from './sign-in-notice.ts';
import {
  ADMIN_CANNOT_DISABLE,
  checkCurrentPassword,
  noteTwoFactorChange,
  pendingSignIn,
  SIGN_IN_AGAIN,
  storedRecoveryCode,
  twoFactorStatus,
  WRONG_CODE,
  WRONG_RECOVERY_CODE,
} from './two-factor.ts';
import { clearTwoFactorLock, isTwoFactorLocked, noteTwoFactorLockout, TWO_FACTOR_LOCKED } from './two-factor-lock.ts';

/** Copies better-auth's Set-Cookie headers onto our answer. */
export function forwardCookies(from: Headers, to: Headers) {
  for (const cookie of from.getSetCookie()) to.append('Set-Cookie', cookie);
}

export const codeOf = (error: unknown) =>
  error instanceof APIError ? ((error.body as { code?: string } | undefined)?.code ?? String(error.status)) : undefined;

export const networkOf = (c: Context<AppEnv>) => addressBucket(clientIp(c, c.var.deps.env.trustProxyHeader));

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
  .get('/me/two-factor', requireUser, async (c) =>
    c.json(await twoFactorStatus(c.var.deps.orm, c.var.deps.auth, signedInUser(c).id)),
  )
  .post('/me/two-factor/setup', requireUser, async (c) => {
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
  .post('/me/two-factor/enable', requireUser, async (c) => {
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
  .post('/me/two-factor/recovery-codes', requireUser, async (c) => {
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
  .delete('/me/two-factor', requireUser, async (c) => {
    const { deps } = c.var;
    const me = signedInUser(c);
    const { password, code } = await jsonInput(c, TwoFactorDisableInput);
    await deps.rateLimit.hit(LIMITS.passwordChangesPerMember, me.id);
    if (hasAdminRole(me)) throw new AppError('conflict', ADMIN_CANNOT_DISABLE);
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

const CODE_ALREADY_USED = 'この確認コードは使用済みです。次に表示されるコードを入力してください。';
/** A code is valid for its 30-second step and one step either side: remembered a little longer. */
const CODE_MEMORY_SECONDS = 120;

/**
 * Marks `code` used for `userId` (Redis SET NX, shared by every web process): false when it was used
 * already. Redis unavailable: the code is let through (signing in must not depend on Redis), as the
 * throttles do.
 */
async function claimCode(deps: AppEnv['Variables']['deps'], userId: string, code: string) {
  const key = `${deps.queues.mail.opts.prefix ?? 'shop'}:totp-used:${userId}:${code}`;
  const taken = await deps.redis.set(key, '1', 'EX', CODE_MEMORY_SECONDS, 'NX').catch(() => 'OK');
  if (taken !== 'OK') return false;
  return {
    forget: () =>
      deps.redis.del(key).then(
        () => undefined,
        () => undefined,
      ),
  };
}

/** The second step of signing in: a code or a recovery code (passkeys: passkey-routes.ts). */
export const signInStepRoutes = new Hono<AppEnv>().post('/login/two-factor', async (c) => {
  const { deps } = c.var;
  const input = await jsonInput(c, TwoFactorLoginInput);
  const pending = await pendingSignIn(deps.orm, deps.auth, deps.authSecret, c.req.raw.headers);
  if (!pending) throw new AppError('unauthorized', SIGN_IN_AGAIN);
  // Escalated: no code is even checked until the owner's unlock link or a password reset.
  if (await isTwoFactorLocked(deps.orm, pending.id)) {
    throw new AppError('forbidden', TWO_FACTOR_LOCKED, { details: { code: 'two_factor_locked' } });
  }
  const network = networkOf(c);
  // Codes are guesses like passwords: the same throttles, per account and per network, counted before
  // the code is checked (a parallel burst checks no more codes than the limit).
  const attempt = await deps.rateLimit.reserve([
    [LIMITS.signInFailuresPerAddress, network],
    [LIMITS.signInFailuresPerAccount, pending.email],
  ]);
  // A code signs in once (ASVS V6.5.1): the same code again while it is valid is refused.
  const claim = input.code ? await claimCode(deps, pending.id, input.code) : undefined;
  if (claim === false) {
    // The right code, a second time: no guess, so no failure (a slow second tap must not lock anyone out).
    await attempt.release();
    throw validationError({ code: [CODE_ALREADY_USED] }, CODE_ALREADY_USED);
  }
  const trustDevice = input.trust_device && pending.role !== 'admin';
  const headers = c.req.raw.headers;
  try {
    const result = input.code
      ? await deps.auth.api.verifyTOTP({ body: { code: input.code, trustDevice }, headers, returnHeaders: true })
      : await deps.auth.api.verifyBackupCode({
          body: { code: await storedRecoveryCode(deps.auth, pending.id, input.recovery_code ?? ''), trustDevice },
          headers,
          returnHeaders: true,
        });
    await attempt.release();
    await transact(deps.orm.em as Em, (tx) => clearTwoFactorLock(tx, pending.id));
    const res = c.json({ users: [await getUser(deps.orm, result.response.user.id)] });
    forwardCookies(result.headers, res.headers);
    await recordSignIn(c, res, {
      userId: result.response.user.id,
      sessionToken: result.response.token ?? '',
      method: input.code ? 'two_factor' : 'recovery_code',
    });
    return res;
  } catch (error) {
    const code = codeOf(error);
    const wrong = code === 'INVALID_CODE' || code === 'INVALID_BACKUP_CODE' || code === 'TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE';
    await (wrong ? attempt.confirm() : attempt.release());
    if (claim) await claim.forget();
    if (wrong) {
      await auditFailedSignIn(c, pending, input.code ? 'two_factor' : 'recovery_code');
      if (attempt.counts[1] === LIMITS.signInFailuresPerAccount.limit) {
        await noteSignInThrottled(deps, pending.email);
        await noteTwoFactorLockout(deps.orm, pending.id);
      }
      if (code === 'TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE') throw new AppError('unauthorized', SIGN_IN_AGAIN);
      if (input.code) throw validationError({ code: [WRONG_CODE] }, WRONG_CODE);
      throw validationError({ recovery_code: [WRONG_RECOVERY_CODE] }, WRONG_RECOVERY_CODE);
    }
    if (code === 'ACCOUNT_TEMPORARILY_LOCKED') throw new AppError('too_many_requests', undefined, { retryAfter: 900 });
    if (code === 'INVALID_TWO_FACTOR_COOKIE' || code === 'TOTP_NOT_ENABLED' || code === 'BACKUP_CODES_NOT_ENABLED') {
      throw new AppError('unauthorized', SIGN_IN_AGAIN);
    }
    if (code === 'CONFLICT' || code === '409')
      throw validationError({ recovery_code: [WRONG_RECOVERY_CODE] }, WRONG_RECOVERY_CODE);
    throw error;
  }
});
