import { now as dbNow, db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { User } from './entities/user.entity.ts';
import { hashPassword } from './password.ts';
import type { RegistrationData } from './schemas.ts';
import { consumeToken } from './tokens.ts';
import { createUser, findUserByEmail, isUniqueViolation } from './users.ts';

/**
 * Registration without account enumeration: a new address gets an account and a verification
 * e-mail; an address that already has one gets the same answer, and its owner an e-mail saying so.
 */
export async function register(orm: Orm, input: RegistrationData): Promise<void> {
  const attempt = () =>
    transact(orm.em as Em, async (tx) => {
      const existing = await findUserByEmail(tx, input.email);
      if (existing) {
        await hashPassword(input.password); // the same work as a new account, so timing tells nothing
        recordEvent(tx, 'RegistrationAttempted', { userId: existing.id });
        return;
      }
      await createUser(tx, {
        email: input.email,
        password: input.password,
        lastName: input.last_name,
        firstName: input.first_name,
        lastNameKana: input.last_name_kana ?? null,
        firstNameKana: input.first_name_kana ?? null,
        affiliation: input.affiliations,
        affiliationName: input.affiliation_name,
        affiliationOther: input.affiliation_other,
        distribution: input.distribution,
      });
    });
  try {
    await attempt();
  } catch (error) {
    // Two registrations of one address at once: the loser is told like any existing address.
    if (isUniqueViolation(error)) return attempt();
    throw error;
  }
}

/** A verification link: marks the address verified. A used link whose address is verified still succeeds. */
export async function verifyEmail(orm: Orm, token: string): Promise<'verified' | 'used' | 'expired' | 'invalid'> {
  return transact(orm.em as Em, async (tx) => {
    const result = await consumeToken(tx, token, 'verify-email');
    if (result.ok) {
      await kysely(tx)
        .updateTable('users')
        .set({ email_verified: true, updated_at: dbNow() })
        .where('id', '=', result.userId)
        .execute();
      return 'verified';
    }
    if (result.reason === 'used' && result.userId) {
      const user = await tx.findOne(User, { id: result.userId });
      if (user?.emailVerified) return 'verified';
    }
    return result.reason;
  });
}

/** A new verification e-mail for an unverified address; nothing (and the same answer) otherwise. */
export async function requestVerificationEmail(orm: Orm, email: string): Promise<void> {
  await transact(orm.em as Em, async (tx) => {
    const user = await findUserByEmail(tx, email);
    if (user && !user.emailVerified) recordEvent(tx, 'VerificationEmailRequested', { userId: user.id });
  });
}
