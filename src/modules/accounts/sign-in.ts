import { APIError } from 'better-auth/api';
import type * as v from 'valibot';
import { LIMITS } from '../../config/limits.ts';
import type { Em } from '../../db/orm.ts';
import { transact } from '../../events/outbox.ts';
import { isStaffRole } from '../../http/access.ts';
import { addressBucket } from '../../http/client-ip.ts';
import type { AppDeps } from '../../http/context.ts';
import { AppError, validationError } from '../../http/errors.ts';
import type { Reservation } from '../../http/rate-limit.ts';
import { auditFailedSignIn, auditSignIn, type SignInMethod } from './admin-sign-ins.ts';
import { NOT_VERIFIED_MESSAGE, USER_NOT_VERIFIED } from './auth.ts';
import { deviceCookie, noteSignIn, readDeviceId } from './devices.ts';
import type { User } from './entities/user.entity.ts';
import { CHALLENGE_COOKIE, redisSignInChallenges } from './passkey-challenges.ts';
import { getUser } from './profile.ts';
import type { LoginInput, TwoFactorLoginInput } from './schemas.ts';
import { reencryptTwoFactorSecrets, trustedDeviceUnderCurrentSecret } from './secret-rotation.ts';
import { signedCookieValue } from './session.ts';
import type { SignInClient } from './sign-in-client.ts';
import { noteSignInThrottled } from './sign-in-notice.ts';
import {
  type PendingSignIn,
  pendingSignIn,
  SIGN_IN_AGAIN,
  storedRecoveryCode,
  WRONG_CODE,
  WRONG_RECOVERY_CODE,
  withoutTrustedDevice,
} from './two-factor.ts';
import { clearTwoFactorLock, isTwoFactorLocked, noteTwoFactorLockout, TWO_FACTOR_LOCKED } from './two-factor-lock.ts';
import { findUserByEmail } from './users.ts';

export const codeOf = (error: unknown) =>
  error instanceof APIError ? ((error.body as { code?: string } | undefined)?.code ?? String(error.status)) : undefined;

const errorCode = (error: APIError) => (error.body as { code?: string } | undefined)?.code;

const ACCOUNT_UNAVAILABLE = 'このアカウントは利用できません。';
const WRONG_EMAIL_OR_PASSWORD = 'メールアドレスまたはパスワードが正しくありません。';

interface SignedIn {
  user: Awaited<ReturnType<typeof getUser>>;
  cookies: string[];
}

interface SecondStepDue {
  trustDeviceAvailable: boolean;
  cookies: string[];
}

async function signedIn(
  deps: AppDeps,
  client: SignInClient,
  signIn: { userId: string; sessionToken: string; method: SignInMethod },
  authHeaders: Headers,
): Promise<SignedIn> {
  const user = await getUser(deps.orm, signIn.userId);
  const cookies = authHeaders.getSetCookie();
  const { deviceId } = await noteSignIn(deps.orm, {
    ...signIn,
    ip: client.ip,
    userAgent: client.userAgent,
    deviceId: readDeviceId(deps.authSecret, client.deviceCookie),
  });
  await auditSignIn(deps.orm, client, signIn.userId, signIn.method);
  // Refreshed at each sign-in, so a browser in use keeps its id for good.
  cookies.push(deviceCookie(deps.authSecret, deviceId, deps.env.isProduction));
  return { user, cookies };
}

/** docs/decisions/0014-throttles.md */
const reserveGuess = (deps: AppDeps, client: SignInClient, email: string) =>
  deps.rateLimit.reserve([
    [LIMITS.signInFailuresPerAddress, addressBucket(client.ip)],
    [LIMITS.signInFailuresPerAccount, email],
  ]);

/** Only failures count, reserved before the password is checked and given back on success: a parallel burst checks no more guesses than the limit. */
export async function signInWithPassword(
  deps: AppDeps,
  input: v.InferOutput<typeof LoginInput>,
  client: SignInClient,
): Promise<SignedIn | SecondStepDue> {
  const attempt = await reserveGuess(deps, client, input.email);
  // Administrators give a code at every sign-in: a trusted-device cookie never spares them.
  const account = await findUserByEmail(deps.orm.em.fork() as Em, input.email);
  const admin = isStaffRole(account?.role ?? '');
  try {
    const { headers, response } = await deps.auth.api.signInEmail({
      body: { email: input.email, password: input.password, rememberMe: true },
      headers: admin
        ? await withoutTrustedDevice(deps.auth, client.headers)
        : await trustedDeviceUnderCurrentSecret(deps.orm, deps.auth, deps.authSecret, client.headers),
      returnHeaders: true,
    });
    // The password was right: it gives its reserved count back, whatever the code step brings.
    await attempt.release();
    if ('twoFactorRedirect' in response && response.twoFactorRedirect) {
      return { trustDeviceAvailable: !admin, cookies: headers.getSetCookie() };
    }
    return await signedIn(deps, client, { userId: response.user.id, sessionToken: response.token, method: 'password' }, headers);
  } catch (error) {
    throw await refusedPassword(deps, client, { attempt, account, email: input.email }, error);
  }
}

async function refusedPassword(
  deps: AppDeps,
  client: SignInClient,
  tried: { attempt: Reservation; account: User | null; email: string },
  error: unknown,
): Promise<unknown> {
  const failed = error instanceof APIError && (error.statusCode === 401 || errorCode(error) === 'INVALID_EMAIL_OR_PASSWORD');
  await (failed ? tried.attempt.confirm() : tried.attempt.release());
  if (!(error instanceof APIError)) return error;
  if (errorCode(error) === 'EMAIL_NOT_VERIFIED') {
    return validationError(
      { email: ['メールアドレスの確認が完了していません。届いたメールのリンクを開いてください。'] },
      'メールアドレスの確認が完了していません。',
    );
  }
  if (failed) {
    await auditFailedSignIn(deps.orm, client, tried.account, 'password');
    if (tried.attempt.counts[1] === LIMITS.signInFailuresPerAccount.limit) await noteSignInThrottled(deps, tried.email);
    return validationError({ email: [WRONG_EMAIL_OR_PASSWORD] }, WRONG_EMAIL_OR_PASSWORD);
  }
  if (error.statusCode === 403) return new AppError('forbidden', ACCOUNT_UNAVAILABLE);
  return error;
}

const CODE_ALREADY_USED = 'この確認コードは使用済みです。次に表示されるコードを入力してください。';
const CODE_MEMORY_SECONDS = 120;

/** Redis unavailable: the code is let through (signing in must not depend on Redis), as the throttles do. */
async function claimCode(deps: AppDeps, userId: string, code: string) {
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

type SecondFactorInput = v.InferOutput<typeof TwoFactorLoginInput>;

export async function signInWithSecondFactor(deps: AppDeps, input: SecondFactorInput, client: SignInClient): Promise<SignedIn> {
  const pending = await pendingSignIn(deps.orm, deps.auth, deps.authSecret, client.headers);
  if (!pending) throw new AppError('unauthorized', SIGN_IN_AGAIN);
  // Escalated: no code is even checked until the owner's unlock link or a password reset.
  if (await isTwoFactorLocked(deps.orm, pending.id)) {
    throw new AppError('forbidden', TWO_FACTOR_LOCKED, { details: { code: 'two_factor_locked' } });
  }
  // Codes are guesses like passwords: the same throttles, counted before the code is checked.
  const attempt = await reserveGuess(deps, client, pending.email);
  // A code signs in once (ASVS V6.5.1): the same code again while it is valid is refused.
  const claim = input.code ? await claimCode(deps, pending.id, input.code) : undefined;
  if (claim === false) {
    // The right code, a second time: no guess, so no failure (a slow second tap must not lock anyone out).
    await attempt.release();
    throw validationError({ code: [CODE_ALREADY_USED] }, CODE_ALREADY_USED);
  }
  const trustDevice = input.trust_device && !isStaffRole(pending.role);
  const headers = client.headers;
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
    const userId = result.response.user.id;
    // Made under a previous AUTH_SECRET: under the current one from now on (decision 0043).
    await reencryptTwoFactorSecrets(deps.orm, deps.authSecret, userId).catch((error) =>
      deps.log.warn('could not re-encrypt a two-factor secret', { error: String(error) }),
    );
    const method = input.code ? 'two_factor' : 'recovery_code';
    return await signedIn(deps, client, { userId, sessionToken: result.response.token ?? '', method }, result.headers);
  } catch (error) {
    throw await refusedSecondFactor(deps, client, { attempt, claim, pending, input }, error);
  }
}

async function refusedSecondFactor(
  deps: AppDeps,
  client: SignInClient,
  tried: {
    attempt: Reservation;
    claim: { forget: () => Promise<void> } | undefined;
    pending: PendingSignIn;
    input: SecondFactorInput;
  },
  error: unknown,
): Promise<unknown> {
  const { attempt, claim, pending, input } = tried;
  const code = codeOf(error);
  const wrong = code === 'INVALID_CODE' || code === 'INVALID_BACKUP_CODE' || code === 'TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE';
  await (wrong ? attempt.confirm() : attempt.release());
  if (claim) await claim.forget();
  if (wrong) {
    await auditFailedSignIn(deps.orm, client, pending, input.code ? 'two_factor' : 'recovery_code');
    if (attempt.counts[1] === LIMITS.signInFailuresPerAccount.limit) {
      await noteSignInThrottled(deps, pending.email);
      await noteTwoFactorLockout(deps.orm, pending.id);
    }
    if (code === 'TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE') return new AppError('unauthorized', SIGN_IN_AGAIN);
    if (input.code) return validationError({ code: [WRONG_CODE] }, WRONG_CODE);
    return validationError({ recovery_code: [WRONG_RECOVERY_CODE] }, WRONG_RECOVERY_CODE);
  }
  if (code === 'ACCOUNT_TEMPORARILY_LOCKED') return new AppError('too_many_requests', undefined, { retryAfter: 900 });
  if (code === 'INVALID_TWO_FACTOR_COOKIE' || code === 'TOTP_NOT_ENABLED' || code === 'BACKUP_CODES_NOT_ENABLED') {
    return new AppError('unauthorized', SIGN_IN_AGAIN);
  }
  if (code === 'CONFLICT' || code === '409')
    return validationError({ recovery_code: [WRONG_RECOVERY_CODE] }, WRONG_RECOVERY_CODE);
  return error;
}

const PASSKEY_SIGN_IN_FAILED =
  'パスキーでログインできませんでした。登録済みのパスキーを選ぶか、パスワードでログインしてください。';

export async function passkeySignInOptions(deps: AppDeps, client: SignInClient) {
  const network = addressBucket(client.ip);
  await deps.rateLimit.hit(LIMITS.passkeyOptionsPerAddress, network);
  await deps.rateLimit.check(LIMITS.signInFailuresPerAddress, network);
  const { headers, response } = await deps.auth.api.generatePasskeyAuthenticationOptions({
    headers: client.headers,
    returnHeaders: true,
  });
  // The plugin asks for "preferred"; the answer is checked for the UV flag either way (auth.ts).
  return { options: { ...response, userVerification: 'required' as const }, cookies: headers.getSetCookie() };
}

async function restoreSignInChallenge(deps: AppDeps, headers: Headers) {
  const context = await deps.auth.$context;
  const token = signedCookieValue(headers, context.createAuthCookie(CHALLENGE_COOKIE).name, deps.authSecret);
  if (!token) return;
  const challenge = await redisSignInChallenges(deps.redis, deps.queues.mail.opts.prefix ?? 'shop').take(token);
  if (challenge) await context.internalAdapter.createVerificationValue({ identifier: token, ...challenge });
}

/** A passkey stands for both factors, so the device must have verified its user. */
export async function signInWithPasskey(deps: AppDeps, response: unknown, client: SignInClient): Promise<SignedIn> {
  const network = addressBucket(client.ip);
  await deps.rateLimit.check(LIMITS.signInFailuresPerAddress, network);
  await restoreSignInChallenge(deps, client.headers);
  try {
    const result = await deps.auth.api.verifyPasskeyAuthentication({
      // Checked by @simplewebauthn/server inside better-auth; a malformed answer is its APIError.
      body: { response: response as never },
      headers: client.headers,
      returnHeaders: true,
    });
    const { userId, token } = result.response.session;
    return await signedIn(deps, client, { userId, sessionToken: token, method: 'passkey' }, result.headers);
  } catch (error) {
    if (error instanceof APIError) {
      if (error.statusCode === 403) throw new AppError('forbidden', ACCOUNT_UNAVAILABLE);
      await deps.rateLimit.count(LIMITS.signInFailuresPerAddress, network);
      if (codeOf(error) === USER_NOT_VERIFIED) throw new AppError('unauthorized', NOT_VERIFIED_MESSAGE);
      throw validationError({ response: [PASSKEY_SIGN_IN_FAILED] }, PASSKEY_SIGN_IN_FAILED);
    }
    throw error;
  }
}
