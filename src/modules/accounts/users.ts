import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import { recordEvent } from '../../events/outbox.ts';
import type { Role } from '../../http/access.ts';
import { recordConsent } from './consent.ts';
import { Account, User } from './entities/user.entity.ts';
import { hashPassword } from './password.ts';

export interface NewUser {
  email: string;
  password: string;
  lastName: string;
  firstName: string;
  lastNameKana?: string | null;
  firstNameKana?: string | null;
  role?: Role;
  emailVerified?: boolean;
  affiliation?: number | null;
  affiliationName?: string;
  affiliationOther?: string | null;
  distribution?: boolean;
}

export function findUserByEmail(em: Em, email: string): Promise<User | null> {
  return em.findOne(User, { email: email.trim().toLowerCase() });
}

/** An unverified user also records UserRegistered, so the verification e-mail goes out exactly when the row commits. */
export async function createUser(tx: Em, input: NewUser): Promise<User> {
  const now = new Date();
  const user = tx.create(User, {
    id: randomUUID(),
    email: input.email.trim().toLowerCase(),
    emailVerified: input.emailVerified ?? false,
    name: `${input.lastName} ${input.firstName}`.trim(),
    lastName: input.lastName,
    firstName: input.firstName,
    lastNameKana: input.lastNameKana ?? null,
    firstNameKana: input.firstNameKana ?? null,
    role: input.role ?? 'user',
    affiliation: input.affiliation ?? null,
    affiliationName: input.affiliationName ?? '',
    affiliationOther: input.affiliationOther ?? null,
    distribution: input.distribution ?? true,
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
  recordConsent(tx, user.id, user.distribution, 'registration');
  if (!user.emailVerified) recordEvent(tx, 'UserRegistered', { userId: user.id });
  return user;
}

/** MikroORM's exception for what it flushes, node-postgres's 23505 for a Kysely statement. */
export const isUniqueViolation = (error: unknown) =>
  error instanceof UniqueConstraintViolationException || (error as { code?: unknown } | null)?.code === '23505';

export const USER_NOT_FOUND = 'ユーザーが見つかりませんでした。';

export async function endSessions(tx: Em, userId: string): Promise<void> {
  await kysely(tx).deleteFrom('sessions').where('user_id', '=', userId).execute();
}

/** Sales stay with the buyer's details copied at purchase time, for accounting (UserDeleted). */
export async function removeAccount(tx: Em, userId: string, by: 'member' | 'admin'): Promise<void> {
  await endSessions(tx, userId);
  await kysely(tx).deleteFrom('user_notes').where('user_id', '=', userId).execute();
  await kysely(tx).deleteFrom('users').where('id', '=', userId).execute();
  recordEvent(tx, 'UserDeleted', { userId, by });
}
