import { randomUUID } from 'node:crypto';
import { type Db, now as dbNow, db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { AppError, validationError } from '../../http/errors.ts';
import { Account, User } from './entities/user.entity.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { assertPasswordFitsOwner } from './password-policy.ts';
import { consumeToken, retireTokens, tokenState } from './tokens.ts';
import { passkeyNames, removePasskeys } from './two-factor.ts';
import { clearTwoFactorLock } from './two-factor-lock.ts';
import { endSessions } from './users.ts';

/** One path for every address, so the answer's timing says nothing. */
export async function requestPasswordReset(orm: Orm, email: string): Promise<void> {
  await transact(orm.em as Em, async (tx) => {
    recordEvent(tx, 'PasswordResetRequested', { email: email.trim().toLowerCase() });
  });
}

export async function setPassword(tx: Em, userId: string, password: string) {
  const hash = await hashPassword(password);
  const updated = await kysely(tx)
    .updateTable('accounts')
    .set({ password: hash, updated_at: dbNow() })
    .where('user_id', '=', userId)
    .where('provider_id', '=', 'credential')
    .returning('id')
    .execute();
  if (updated.length === 0) {
    const now = new Date();
    tx.create(Account, {
      id: randomUUID(),
      accountId: userId,
      providerId: 'credential',
      user: tx.getReference(User, userId),
      password: hash,
      createdAt: now,
      updatedAt: now,
    });
  }
}

export async function credentialPassword(db: Db, userId: string): Promise<string | null | undefined> {
  const row = await db
    .selectFrom('accounts')
    .select('password')
    .where('user_id', '=', userId)
    .where('provider_id', '=', 'credential')
    .executeTakeFirst();
  return row?.password;
}

const RESET_LINK_PROBLEMS = {
  used: {
    code: 'reset_link_used',
    message: 'このリンクは使用済みです。パスワードを再設定するには、もう一度お手続きください。',
  },
  expired: {
    code: 'reset_link_expired',
    message: 'このリンクの有効期限が切れています。パスワードを再設定するには、もう一度お手続きください。',
  },
  invalid: {
    code: 'reset_link_invalid',
    message: 'このリンクは無効です。メールに記載のリンクをそのまま開くか、もう一度お手続きください。',
  },
} as const;

const resetLinkError = (reason: keyof typeof RESET_LINK_PROBLEMS) => {
  const { code, message } = RESET_LINK_PROBLEMS[reason];
  return new AppError('validation', message, { errors: { token: [message] }, details: { code } });
};

export async function checkResetLink(orm: Orm, token: string) {
  const state = await tokenState(orm.em.fork() as Em, token, 'reset-password');
  return state === 'valid' ? { valid: true as const } : { valid: false as const, ...RESET_LINK_PROBLEMS[state] };
}

const RESET_EMAIL_MISMATCH =
  'メールアドレスが、再設定のご案内をお送りしたメールアドレスと一致しません。ご案内メールの宛先のメールアドレスを入力してください。';

export async function resetPassword(orm: Orm, input: { email: string; password: string; token: string }): Promise<void> {
  await transact(orm.em as Em, async (tx) => {
    const result = await consumeToken(tx, input.token, 'reset-password');
    if (!result.ok) throw resetLinkError(result.reason);
    const user = await tx.findOne(User, { id: result.userId });
    if (!user) throw resetLinkError('invalid');
    // A typo is not an expired link: say which field is wrong (the rollback keeps the token usable).
    if (user.email !== input.email) throw validationError({ email: [RESET_EMAIL_MISMATCH] }, RESET_EMAIL_MISMATCH);
    await assertPasswordFitsOwner('password', input.password, user);
    await setPassword(tx, user.id, input.password);
    await retireTokens(tx, user.id, 'reset-password');
    await clearTwoFactorLock(tx, user.id);
    // Following the link proved the mailbox is theirs.
    user.emailVerified = true;
    await endSessions(tx, user.id);
    // The "I lost control" path: a passkey the intruder added would sign in past the new password.
    const passkeys = await removePasskeys(tx, user.id);
    recordEvent(tx, 'PasswordChanged', { userId: user.id, by: 'reset', passkeys });
  });
}

export async function changePassword(
  orm: Orm,
  userId: string,
  currentSessionToken: string | undefined,
  input: { old_password: string; new_password: string },
): Promise<void> {
  await transact(orm.em as Em, async (tx) => {
    const current = await credentialPassword(kysely(tx), userId);
    if (!current || !(await verifyPassword(current, input.old_password))) {
      throw validationError({ old_password: ['現在のパスワードが正しくありません。'] });
    }
    const user = await tx.findOne(User, { id: userId });
    if (user) await assertPasswordFitsOwner('new_password', input.new_password, user);
    await setPassword(tx, userId, input.new_password);
    await kysely(tx)
      .deleteFrom('sessions')
      .where('user_id', '=', userId)
      .where('token', '<>', currentSessionToken ?? '')
      .execute();
    // Passkeys stay (the member chose a new password, not a new device): the notice lists them.
    recordEvent(tx, 'PasswordChanged', { userId, by: 'member', passkeys: await passkeyNames(tx, userId) });
  });
}

export async function isCurrentPassword(orm: Orm, userId: string, password: string): Promise<boolean> {
  const current = await credentialPassword(kysely(orm.em.fork() as Em), userId);
  return Boolean(current && (await verifyPassword(current, password)));
}
