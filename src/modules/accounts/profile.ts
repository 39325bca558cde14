import { LockMode } from '@mikro-orm/core';
import { now as dbNow, db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { AppError, validationError } from '../../http/errors.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import { recordConsent } from './consent.ts';
import { User } from './entities/user.entity.ts';
import type { ProfileData } from './schemas.ts';
import { consumeToken } from './tokens.ts';
import { auditView, userDto } from './user-dto.ts';
import { findUserByEmail, isUniqueViolation, USER_NOT_FOUND } from './users.ts';

export async function getUser(orm: Orm, id: string) {
  const user = await orm.em.fork().findOne(User, { id });
  if (!user) throw new AppError('not_found', USER_NOT_FOUND);
  return userDto(user, { pendingEmail: user.pendingEmail ?? null });
}

const STALE_USER_EDIT =
  'この会員情報は、別の画面または管理者によって先に更新されています。最新の内容を読み込んでから、もう一度変更してください。';

/** 409 unless `user` is still the version `updatedAt` (an ISO time) an edit was loaded from. */
function assertVersion(user: User, updatedAt: string | undefined): void {
  if (updatedAt !== undefined && user.updatedAt.getTime() !== new Date(updatedAt).getTime()) {
    throw new AppError('conflict', STALE_USER_EDIT);
  }
}

/** The validate call of an edit: 404 for nobody, 409 when the form was loaded from an older version. */
export async function checkEditable(orm: Orm, id: string, updatedAt: string | undefined): Promise<void> {
  const user = await orm.em.fork().findOne(User, { id });
  if (!user) throw new AppError('not_found', USER_NOT_FOUND);
  assertVersion(user, updatedAt);
}

/** The フリガナ an edit sets: a field left out of the call (a seed client) keeps what is stored. */
const kanaOf = (input: Pick<ProfileData, 'last_name_kana' | 'first_name_kana'>) => ({
  ...(input.last_name_kana !== undefined ? { lastNameKana: input.last_name_kana } : {}),
  ...(input.first_name_kana !== undefined ? { firstNameKana: input.first_name_kana } : {}),
});

/**
 * Saves a profile edit over the version it was loaded from (`updatedAt`), else 409: the row is locked
 * for the check, so of two edits of one version only the first saves. Names, affiliation and
 * distribution change at once; a new e-mail address only after it is verified (EmailChangeRequested
 * mails it a link, and tells the old address) unless an administrator changes it.
 */
export async function updateProfile(
  orm: Orm,
  id: string,
  input: ProfileData & { updated_at?: string },
  byAdmin: Actor | null = null,
): Promise<{ emailChangePending: boolean; emailChanged?: boolean }> {
  return transact(orm.em as Em, async (tx) => {
    const user = await tx.findOne(User, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!user) throw new AppError('not_found', USER_NOT_FOUND);
    assertVersion(user, input.updated_at);
    const before = auditView(user);
    const distribution = input.distribution ?? user.distribution;
    if (distribution !== user.distribution) recordConsent(tx, user.id, distribution, byAdmin ? 'admin' : 'profile');
    if (byAdmin) {
      const oldEmail = user.email;
      // An administrator's edit applies at once (the address is theirs to vouch for) and is audited.
      if (input.email !== user.email && (await findUserByEmail(tx, input.email))) {
        throw validationError({ email: ['このメールアドレスは既に使用されています。'] });
      }
      Object.assign(user, {
        email: input.email,
        pendingEmail: null,
        lastName: input.last_name,
        firstName: input.first_name,
        name: `${input.last_name} ${input.first_name}`,
        ...kanaOf(input),
        affiliation: input.affiliations,
        affiliationName: input.affiliation_name,
        affiliationOther: input.affiliation_other,
        distribution,
        updatedAt: new Date(),
      });
      recordAudit(tx, byAdmin, { action: 'user.update', targetType: 'user', targetId: user.id, before, after: auditView(user) });
      // The member must learn the address they now sign in with, and the old one that it changed.
      if (oldEmail !== user.email) recordEvent(tx, 'EmailChangedByAdmin', { userId: user.id, oldEmail });
      return { emailChangePending: false, emailChanged: oldEmail !== user.email };
    }
    user.lastName = input.last_name;
    user.firstName = input.first_name;
    user.name = `${input.last_name} ${input.first_name}`;
    Object.assign(user, kanaOf(input));
    user.affiliation = input.affiliations;
    user.affiliationName = input.affiliation_name;
    user.affiliationOther = input.affiliation_other;
    user.distribution = distribution;
    user.updatedAt = new Date();
    if (input.email === user.email) {
      user.pendingEmail = null;
      return { emailChangePending: false };
    }
    // A taken address answers exactly like a free one (no account enumeration): its owner is told
    // instead, and no confirmation link is sent anywhere.
    user.pendingEmail = input.email;
    const taken = await findUserByEmail(tx, input.email);
    if (taken && taken.id !== user.id) recordEvent(tx, 'EmailChangeAttempted', { userId: taken.id });
    else recordEvent(tx, 'EmailChangeRequested', { userId: user.id, newEmail: input.email });
    return { emailChangePending: true };
  });
}

/** A confirmation link sent to a new address: the address becomes the account's e-mail. */
export async function confirmEmailChange(orm: Orm, token: string): Promise<'changed' | 'used' | 'expired' | 'invalid' | 'taken'> {
  try {
    return await transact(orm.em as Em, async (tx) => {
      const result = await consumeToken(tx, token, 'change-email');
      if (!result.ok) return result.reason;
      if (!result.newEmail) return 'invalid';
      const taken = await findUserByEmail(tx, result.newEmail);
      if (taken && taken.id !== result.userId) return 'taken';
      await kysely(tx)
        .updateTable('users')
        .set({ email: result.newEmail, email_verified: true, pending_email: null, updated_at: dbNow() })
        .where('id', '=', result.userId)
        .execute();
      return 'changed';
    });
  } catch (error) {
    if (isUniqueViolation(error)) return 'taken';
    throw error;
  }
}
