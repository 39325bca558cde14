import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.ts';
import type { TokenPurpose } from './entities/account-token.entity.ts';

export const TOKEN_TTL_SECONDS: Record<TokenPurpose, number> = {
  'verify-email': 24 * 3600,
  'change-email': 24 * 3600,
  'reset-password': 3600,
};

const digest = (raw: string) => createHash('sha256').update(raw).digest('hex');

/**
 * Issues the token an e-mail job links to, committed before the e-mail is sent. The secret is derived
 * from the server secret and the job's own key, so a retried job re-issues the same token (the insert
 * is idempotent) and every e-mail it may have sent carries a link that works. Older unused tokens of
 * the same purpose stop working.
 */
export async function issueToken(
  em: Em,
  secret: string,
  key: string,
  userId: string,
  purpose: TokenPurpose,
  newEmail: string | null = null,
): Promise<string> {
  const raw = createHmac('sha256', secret).update(`account-token:${key}`).digest('base64url');
  const hash = digest(raw);
  await em.fork().transactional(async (tx) => {
    await tx.execute(
      'update account_tokens set used_at = now() where user_id = ? and purpose = ? and used_at is null and token_hash <> ?',
      [userId, purpose, hash],
    );
    await tx.execute(
      `insert into account_tokens (id, user_id, purpose, token_hash, new_email, expires_at, created_at)
       values (?, ?, ?, ?, ?, now() + make_interval(secs => ?), now()) on conflict (token_hash) do nothing`,
      [randomUUID(), userId, purpose, hash, newEmail, TOKEN_TTL_SECONDS[purpose]],
    );
  });
  return raw;
}

export type ConsumeResult =
  | { ok: true; userId: string; newEmail: string | null }
  | { ok: false; reason: 'invalid' | 'expired' | 'used'; userId?: string };

/**
 * Uses a token once: the update that sets `used_at` only matches an unused, unexpired row, so two
 * clicks racing each other cannot both succeed. Call it inside the transaction that acts on it.
 */
export async function consumeToken(tx: Em, raw: string, purpose: TokenPurpose): Promise<ConsumeResult> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(raw)) return { ok: false, reason: 'invalid' };
  const hash = digest(raw);
  const used = await tx.execute<{ user_id: string; new_email: string | null }[]>(
    `update account_tokens set used_at = now()
     where token_hash = ? and purpose = ? and used_at is null and expires_at > now()
     returning user_id, new_email`,
    [hash, purpose],
  );
  const row = used[0];
  if (row) return { ok: true, userId: row.user_id, newEmail: row.new_email };
  const found = await tx.execute<{ user_id: string; used_at: Date | null }[]>(
    'select user_id, used_at from account_tokens where token_hash = ? and purpose = ?',
    [hash, purpose],
  );
  const existing = found[0];
  if (!existing) return { ok: false, reason: 'invalid' };
  return { ok: false, reason: existing.used_at ? 'used' : 'expired', userId: existing.user_id };
}

/** Older unused tokens of the same purpose stop working when a new one is issued or one is used. */
export async function retireTokens(tx: Em, userId: string, purpose: TokenPurpose): Promise<void> {
  await tx.execute('update account_tokens set used_at = now() where user_id = ? and purpose = ? and used_at is null', [
    userId,
    purpose,
  ]);
}

export type TokenState = 'valid' | 'used' | 'expired' | 'invalid';

/** What a link's token is now, without using it (the reset page says so before the member types a password). */
export async function tokenState(em: Em, raw: string, purpose: TokenPurpose): Promise<TokenState> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(raw)) return 'invalid';
  const rows = await em.execute<{ used: boolean; expired: boolean }[]>(
    'select used_at is not null as used, expires_at <= now() as expired from account_tokens where token_hash = ? and purpose = ?',
    [digest(raw), purpose],
  );
  const row = rows[0];
  if (!row) return 'invalid';
  return row.used ? 'used' : row.expired ? 'expired' : 'valid';
}
