import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { transact } from '../../events/outbox.ts';
import { isStaffRole } from '../../http/access.ts';
import type { SessionUser } from '../../http/context.ts';
import type { Logger } from '../../lib/logger.ts';
import { recordAudit } from '../audit/index.ts';
import { STAFF_SESSION_SECONDS } from './session.ts';
import type { SignInClient } from './sign-in-client.ts';

/** How a sign-in was completed (the step that made the session). */
export type SignInMethod = 'password' | 'two_factor' | 'recovery_code' | 'passkey';
/** Which check a failed sign-in failed. */
export type SignInFailure = 'password' | 'two_factor' | 'recovery_code';

const clientOf = (client: SignInClient) => ({ ip: client.ip, user_agent: client.userAgent });

/**
 * Administrators' sign-ins go into the audit log: who, from which address and
 * browser, how. Never the password or a code. Members' sign-ins are not audited (their sessions page
 * shows them); the role is read in the transaction that writes the entry.
 */
export async function auditSignIn(orm: Orm, client: SignInClient, userId: string, method: SignInMethod): Promise<void> {
  await transact(orm.em as Em, async (tx) => {
    const user = await kysely(tx).selectFrom('users').select(['email', 'role']).where('id', '=', userId).executeTakeFirst();
    if (!user || !isStaffRole(user.role)) return;
    recordAudit(
      tx,
      { id: userId, email: user.email },
      {
        action: 'admin.sign_in',
        targetType: 'user',
        targetId: userId,
        after: { sign_in_method: method, ...clientOf(client) },
      },
    );
  });
}

/**
 * A failed sign-in to an existing administrator account (a wrong password, code or recovery code).
 * Failures are throttled per account and per network before they are checked (LIMITS), so an attacker
 * adds at most that many entries; attempts on addresses that are not administrators' record nothing.
 * The account tried is the subject; the actor is whoever is signed in on the calling browser, and
 * nobody (不明) for an anonymous caller: the attempt is not the administrator's own doing.
 */
export async function auditFailedSignIn(
  orm: Orm,
  client: SignInClient,
  account: { id: string; email: string; role?: string | null } | null | undefined,
  failure: SignInFailure,
): Promise<void> {
  if (!account || !isStaffRole(account.role ?? '')) return;
  const caller = await client.caller();
  await transact(orm.em as Em, async (tx) => {
    recordAudit(tx, caller, {
      action: 'admin.sign_in_failed',
      targetType: 'user',
      targetId: account.id,
      after: { sign_in_failure: failure, ...clientOf(client) },
    });
  });
}

/** Staff refused outside ADMIN_ALLOWED_NETWORKS: one audit entry per session and address (a Redis key for the session's lifetime). */
export function staffNetworkRefusals(orm: Orm, redis: Redis, prefix: string, log: Logger) {
  return async (user: SessionUser, ip: string): Promise<void> => {
    try {
      const session = createHash('sha256').update(user.sessionToken).digest('hex').slice(0, 32);
      const first = await redis.set(`${prefix}:network-refused:${session}:${ip}`, '1', 'EX', STAFF_SESSION_SECONDS, 'NX');
      if (first !== 'OK') return;
      await transact(orm.em as Em, async (tx) => {
        recordAudit(
          tx,
          { id: user.id, email: user.email },
          { action: 'admin.network_refused', targetType: 'user', targetId: user.id, after: { ip } },
        );
      });
    } catch (error) {
      // The refusal stands whether or not it could be recorded.
      log.warn('admin network refusal not audited', { err: error });
    }
  };
}
