import { randomUUID } from 'node:crypto';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { Account, User } from './entities/user.entity.ts';
import { hashPassword } from './password.ts';

export interface NewUser {
  email: string;
  password: string;
  lastName: string;
  firstName: string;
  role?: 'admin' | 'user';
  emailVerified?: boolean;
}

/** The user as the API shows it (the seed's snake_case fields). */
export function userDto(user: Pick<User, 'id' | 'email' | 'lastName' | 'firstName' | 'role' | 'emailVerified'>) {
  return {
    id: user.id,
    email: user.email,
    last_name: user.lastName,
    first_name: user.firstName,
    role: user.role,
    email_verified: user.emailVerified,
  };
}

export function findUserByEmail(em: Em, email: string): Promise<User | null> {
  return em.findOne(User, { email: email.trim().toLowerCase() });
}

/**
 * Creates a user with a credential account inside the caller's transaction; an unverified user
 * also records UserRegistered, so the verification e-mail goes out exactly when the row commits.
 */
export async function createUser(tx: Em, input: NewUser): Promise<User> {
  const now = new Date();
  const user = tx.create(User, {
    id: randomUUID(),
    email: input.email.trim().toLowerCase(),
    emailVerified: input.emailVerified ?? false,
    name: `${input.lastName} ${input.firstName}`.trim(),
    lastName: input.lastName,
    firstName: input.firstName,
    role: input.role ?? 'user',
    banned: false,
    createdAt: now,
    updatedAt: now,
  });
  tx.create(Account, {
    id: randomUUID(),
    accountId: user.id,
    providerId: 'credential',
    user,
    password: await hashPassword(input.password),
    createdAt: now,
    updatedAt: now,
  });
  if (!user.emailVerified) recordEvent(tx, 'UserRegistered', { userId: user.id });
  return user;
}

/** Creates an administrator, or promotes an existing user; running it twice changes nothing more. */
export async function createOrPromoteAdmin(
  orm: Orm,
  input: { email: string; password: string; lastName?: string; firstName?: string },
): Promise<{ user: User; created: boolean }> {
  return transact(orm.em as Em, async (tx) => {
    const existing = await findUserByEmail(tx, input.email);
    if (existing) {
      existing.role = 'admin';
      existing.emailVerified = true;
      return { user: existing, created: false };
    }
    const user = await createUser(tx, {
      email: input.email,
      password: input.password,
      lastName: input.lastName ?? '管理者',
      firstName: input.firstName ?? '',
      role: 'admin',
      emailVerified: true,
    });
    return { user, created: true };
  });
}
