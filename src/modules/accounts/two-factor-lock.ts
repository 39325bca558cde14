import { sql } from 'kysely';
import { db as kysely, now } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { AppError } from '../../http/errors.ts';
import { consumeToken, retireTokens, tokenState } from './tokens.ts';

/** Lock-outs in a row (each one a filled failure window: 10 wrong codes) before codes are refused for good. */
const LOCKOUTS_BEFORE_LOCK = 3;

export const TWO_FACTOR_LOCKED =
  '確認コードの誤りが続いたため、確認コードによるログインを停止しています。登録メールアドレスにお送りしたリンクから停止を解除するか、パスワードを再設定してください。';

/** Whether codes are refused for `userId` until the unlock link or a password reset. */
export async function isTwoFactorLocked(orm: Orm, userId: string): Promise<boolean> {
  const row = await kysely(orm.em.fork() as Em)
    .selectFrom('two_factor_locks')
    .select('locked_at')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Boolean(row?.locked_at);
}

/**
 * The code step just filled the account's failure window: one more lock-out in a row. The third
 * locks codes out and mails the owner an unlock link (TwoFactorLocked), once per lock.
 */
export async function noteTwoFactorLockout(orm: Orm, userId: string): Promise<void> {
  await transact(orm.em as Em, async (tx) => {
    const row = await kysely(tx)
      .insertInto('two_factor_locks')
      .values({ user_id: userId, lockouts: 1, updated_at: now() })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ lockouts: sql`two_factor_locks.lockouts + 1`, updated_at: now() }))
      .returning(['lockouts', 'locked_at'])
      .executeTakeFirstOrThrow();
    if (row.locked_at || row.lockouts < LOCKOUTS_BEFORE_LOCK) return;
    await kysely(tx).updateTable('two_factor_locks').set({ locked_at: now() }).where('user_id', '=', userId).execute();
    recordEvent(tx, 'TwoFactorLocked', { userId });
  });
}

/** The owner signed in with a code, followed the unlock link or reset the password: the count starts again. */
export async function clearTwoFactorLock(tx: Em, userId: string): Promise<void> {
  await kysely(tx).deleteFrom('two_factor_locks').where('user_id', '=', userId).execute();
  await retireTokens(tx, userId, 'unlock-two-factor');
}

const UNLOCK_LINK_ERRORS = {
  invalid: 'このリンクは無効です。メールに記載のリンクをもう一度お確かめください。',
  expired: 'このリンクは有効期限が切れています。パスワードを再設定すると、確認コードによるログインも再開できます。',
  used: 'このリンクはすでに使用されています。',
} as const;

/** What an unlock link is now (the page says so before the button is pressed). */
export async function checkUnlockLink(orm: Orm, token: string) {
  const state = await tokenState(orm.em.fork() as Em, token, 'unlock-two-factor');
  return { state, message: state === 'valid' ? null : UNLOCK_LINK_ERRORS[state] };
}

/** Follows an unlock link once: codes are accepted again and the lock-out count starts from zero. */
export async function unlockTwoFactor(orm: Orm, token: string): Promise<void> {
  await transact(orm.em as Em, async (tx) => {
    const result = await consumeToken(tx, token, 'unlock-two-factor');
    if (!result.ok) {
      throw new AppError(result.reason === 'invalid' ? 'not_found' : 'conflict', UNLOCK_LINK_ERRORS[result.reason]);
    }
    await clearTwoFactorLock(tx, result.userId);
  });
}
