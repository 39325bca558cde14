import { createHash, createHmac, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { db as kysely, now } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import type { TokenPurpose } from './entities/account-token.entity.ts';

const TOKEN_TTL_SECONDS: Record<TokenPurpose, number> = {
  'verify-email': 24 * 3600,
  'change-email': 24 * 3600,
  'reset-password': 3600,
  'unlock-two-factor': 24 * 3600,
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
    const db = kysely(tx as Em);
    await db
      .updateTable('account_tokens')
      .set({ used_at: now() })
      .where('user_id', '=', userId)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('token_hash', '<>', hash)
      .execute();
    await db
      .insertInto('account_tokens')
      .values({
        id: randomUUID(),
        user_id: userId,
        purpose,
        token_hash: hash,
        new_email: newEmail,
        expires_at: sql<string>`now() + make_interval(secs => ${TOKEN_TTL_SECONDS[purpose]})`,
        created_at: now(),
      })
      .onConflict((oc) => oc.column('token_hash').doNothing())
      .execute();
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
  const db = kysely(tx);
  const row = await db
    .updateTable('account_tokens')
    .set({ used_at: now() })
    .where('token_hash', '=', hash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now())
    .returning(['user_id', 'new_email'])
    .executeTakeFirst();
  if (row) return { ok: true, userId: row.user_id, newEmail: row.new_email };
  const existing = await db
    .selectFrom('account_tokens')
    .select(['user_id', 'used_at'])
    .where('token_hash', '=', hash)
    .where('purpose', '=', purpose)
    .executeTakeFirst();
  if (!existing) return { ok: false, reason: 'invalid' };
  return { ok: false, reason: existing.used_at ? 'used' : 'expired', userId: existing.user_id };
}

/** Older unused tokens of the same purpose stop working when a new one is issued or one is used. */
export async function retireTokens(tx: Em, userId: string, purpose: TokenPurpose): Promise<void> {
  await kysely(tx)
    .updateTable('account_tokens')
    .set({ used_at: now() })
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute();
}

export type TokenState = 'valid' | 'used' | 'expired' | 'invalid';

/** What a link's token is now, without using it (the reset page says so before the member types a password). */
export async function tokenState(em: Em, raw: string, purpose: TokenPurpose): Promise<TokenState> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(raw)) return 'invalid';
  const row = await kysely(em)
    .selectFrom('account_tokens')
    .select((eb) => [eb('used_at', 'is not', null).as('used'), eb('expires_at', '<=', now()).as('expired')])
    .where('token_hash', '=', digest(raw))
    .where('purpose', '=', purpose)
    .executeTakeFirst();
  if (!row) return 'invalid';
  return row.used ? 'used' : row.expired ? 'expired' : 'valid';
}
