import type { Context } from 'hono';
import { LIMITS } from '../../config/limits.ts';
import type { AppEnv, SessionUser } from '../../http/context.ts';
import { validationError } from '../../http/errors.ts';
import { isCurrentPassword } from './passwords.ts';
import { noteSignInThrottled } from './sign-in-notice.ts';

const WRONG_CURRENT_PASSWORD = '現在のパスワードが正しくありません。';

/**
 * Re-authentication before a sensitive change (e-mail address, password): the member's current
 * password, else 422 on `field`. A wrong one is a failed sign-in for the account's throttle — counted
 * before it is checked, like /api/login's — so a stolen session cannot guess the password here either.
 */
export async function reauthenticate(c: Context<AppEnv>, user: SessionUser, password: string, field: string): Promise<void> {
  const { deps } = c.var;
  const attempt = await deps.rateLimit.reserve([[LIMITS.signInFailuresPerAccount, user.email]]);
  let right = false;
  try {
    right = await isCurrentPassword(deps.orm, user.id, password);
  } finally {
    await (right ? attempt.release() : attempt.confirm());
  }
  if (right) return;
  if (attempt.counts[0] === LIMITS.signInFailuresPerAccount.limit) await noteSignInThrottled(deps, user.email);
  throw validationError({ [field]: [WRONG_CURRENT_PASSWORD] }, WRONG_CURRENT_PASSWORD);
}
