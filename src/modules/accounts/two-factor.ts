import { db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import type { EventPayload } from '../../events/contracts.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { validationError } from '../../http/errors.ts';
import type { Auth } from './auth.ts';
import { Passkey } from './entities/two-factor.entity.ts';
import { User } from './entities/user.entity.ts';
import { verifyPassword } from './password.ts';
import { canonicalRecoveryCode } from './recovery-codes.ts';
import { signedCookieValue } from './session.ts';

const WRONG_PASSWORD = 'パスワードが正しくありません。';
export const WRONG_CODE = '確認コードが正しくありません。認証アプリに表示されている6桁の数字を入力してください。';
export const WRONG_RECOVERY_CODE = 'リカバリーコードが正しくないか、すでに使用されています。';
export const SIGN_IN_AGAIN = 'ログインの手続きの有効期限が切れました。もう一度メールアドレスとパスワードでログインしてください。';
export const ADMIN_CANNOT_DISABLE = '管理者は二段階認証を無効にできません。';

export async function checkCurrentPassword(orm: Orm, userId: string, password: string): Promise<void> {
  const em = orm.em.fork() as Em;
  const row = await kysely(em)
    .selectFrom('accounts')
    .select('password')
    .where('user_id', '=', userId)
    .where('provider_id', '=', 'credential')
    .executeTakeFirst();
  const hash = row?.password;
  if (!hash || !(await verifyPassword(hash, password))) throw validationError({ password: [WRONG_PASSWORD] }, WRONG_PASSWORD);
}

export async function noteTwoFactorChange(orm: Orm, userId: string, change: EventPayload<'TwoFactorChanged'>['change']) {
  await transact(orm.em as Em, async (tx) => {
    recordEvent(tx, 'TwoFactorChanged', { userId, change });
  });
}

export interface PendingSignIn {
  id: string;
  email: string;
  role: string;
}

/** Null when the twoFactor plugin's signed cookie is absent, forged or expired. */
export async function pendingSignIn(orm: Orm, auth: Auth, secret: string, headers: Headers): Promise<PendingSignIn | null> {
  const context = await auth.$context;
  const identifier = signedCookieValue(headers, context.createAuthCookie('two_factor').name, secret);
  if (!identifier) return null;
  const verification = await context.internalAdapter.findVerificationValue(identifier);
  if (!verification || new Date(verification.expiresAt).getTime() <= Date.now()) return null;
  const user = await orm.em.fork().findOne(User, { id: verification.value });
  return user ? { id: user.id, email: user.email, role: user.role } : null;
}

/** Administrators always give a code. */
export async function withoutTrustedDevice(auth: Auth, headers: Headers): Promise<Headers> {
  const name = (await auth.$context).createAuthCookie('trust_device').name;
  const copy = new Headers(headers);
  const cookie = headers.get('cookie');
  if (cookie) {
    copy.set(
      'cookie',
      cookie
        .split(';')
        .filter((part) => part.split('=')[0]?.trim() !== name)
        .join(';'),
    );
  }
  return copy;
}

export async function listPasskeys(orm: Orm, userId: string) {
  const rows = await orm.em
    .fork()
    .find(
      Passkey,
      { user: userId },
      { orderBy: { createdAt: 'desc', id: 'asc' }, fields: ['id', 'name', 'createdAt', 'deviceType', 'backedUp'] },
    );
  return rows.map((row) => ({
    id: row.id,
    name: row.name || 'パスキー',
    created_at: row.createdAt ? row.createdAt.toISOString() : null,
    synced: row.backedUp,
  }));
}

export async function passkeyNames(tx: Em, userId: string): Promise<string[]> {
  const rows = await kysely(tx)
    .selectFrom('passkeys')
    .select('name')
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .execute();
  return rows.map((row) => row.name || 'パスキー');
}

/** Whoever took the account may have added one. */
export async function removePasskeys(tx: Em, userId: string): Promise<string[]> {
  const names = await passkeyNames(tx, userId);
  await kysely(tx).deleteFrom('passkeys').where('user_id', '=', userId).execute();
  return names;
}

export async function twoFactorStatus(orm: Orm, auth: Auth, userId: string) {
  const user = await orm.em.fork().findOne(User, { id: userId }, { fields: ['twoFactorEnabled'] });
  const enabled = Boolean(user?.twoFactorEnabled);
  let remaining: number | null = null;
  if (enabled) {
    try {
      const { backupCodes } = await auth.api.viewBackupCodes({ body: { userId } });
      remaining = backupCodes.length;
    } catch {
      remaining = null;
    }
  }
  return { enabled, recovery_codes_remaining: remaining, passkeys: await listPasskeys(orm, userId) };
}

/** better-auth compares exactly, so the member's spelling is matched against their own codes first. */
export async function storedRecoveryCode(auth: Auth, userId: string, typed: string): Promise<string> {
  const canonical = canonicalRecoveryCode(typed);
  let stored: string[] = [];
  try {
    ({ backupCodes: stored } = await auth.api.viewBackupCodes({ body: { userId } }));
  } catch {
    return canonical;
  }
  return stored.find((code) => canonicalRecoveryCode(code) === canonical) ?? canonical;
}
