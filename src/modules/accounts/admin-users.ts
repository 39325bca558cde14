import { db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { isStaffRole, type Role } from '../../http/access.ts';
import { AppError } from '../../http/errors.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import { listMails } from '../mail/index.ts';
import { User } from './entities/user.entity.ts';
import { assertPasswordFitsOwner } from './password-policy.ts';
import { setPassword } from './passwords.ts';
import { auditView } from './user-dto.ts';
import { createUser, endSessions, findUserByEmail, removeAccount, USER_NOT_FOUND } from './users.ts';

/** Running it twice changes nothing more. */
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

export async function forcePassword(orm: Orm, actor: Actor, id: string, password: string): Promise<void> {
  await transact(orm.em as Em, async (tx) => {
    const user = await tx.findOne(User, { id });
    if (!user) throw new AppError('not_found', USER_NOT_FOUND);
    await assertPasswordFitsOwner('new_password', password, user);
    await setPassword(tx, user.id, password);
    await endSessions(tx, user.id);
    recordEvent(tx, 'PasswordChanged', { userId: user.id, by: 'admin' });
    recordAudit(tx, actor, { action: 'user.force_password', targetType: 'user', targetId: user.id });
  });
}

export async function forceDelete(orm: Orm, actor: Actor, id: string): Promise<void> {
  await transact(orm.em as Em, async (tx) => {
    const user = await tx.findOne(User, { id });
    if (!user) throw new AppError('not_found', USER_NOT_FOUND);
    if (user.role === 'admin') await keepAnAdministrator(tx);
    if (actor.id === id) throw new AppError('forbidden', '自分自身のアカウントは削除できません。');
    const before = auditView(user);
    await removeAccount(tx, user.id, 'admin');
    recordAudit(tx, actor, { action: 'user.delete', targetType: 'user', targetId: id, before });
  });
}

async function keepAnAdministrator(tx: Em): Promise<void> {
  const admins = await kysely(tx).selectFrom('users').select('id').where('role', '=', 'admin').forUpdate().execute();
  if (admins.length <= 1) throw new AppError('conflict', '最後の管理者は外せません。先に別の管理者を追加してください。');
}

/** The user's sessions end, so the new role counts at their next request. */
export async function setRole(orm: Orm, actor: Actor, id: string, role: Role): Promise<void> {
  await transact(orm.em as Em, async (tx) => {
    const user = await tx.findOne(User, { id });
    if (!user) throw new AppError('not_found', USER_NOT_FOUND);
    if (user.role === role) return;
    if (user.role === 'admin') await keepAnAdministrator(tx);
    if (actor.id === id) throw new AppError('forbidden', '自分自身の役割は変更できません。ほかの管理者に依頼してください。');
    const before = { role: user.role };
    user.role = role;
    user.updatedAt = new Date();
    // Staff sign in with an address an administrator vouches for (as createOrPromoteAdmin does).
    if (isStaffRole(role)) user.emailVerified = true;
    await endSessions(tx, user.id);
    recordAudit(tx, actor, { action: 'user.role', targetType: 'user', targetId: user.id, before, after: { role } });
  });
}

const ALREADY_VERIFIED = 'このユーザーのメールアドレスは確認済みです。確認メールを再送する必要はありません。';

export async function resendVerificationMail(
  orm: Orm,
  actor: Actor,
  id: string,
  throttle: (email: string) => Promise<void>,
): Promise<{ email: string }> {
  return transact(orm.em as Em, async (tx) => {
    const user = await tx.findOne(User, { id });
    if (!user) throw new AppError('not_found', USER_NOT_FOUND);
    if (user.emailVerified) throw new AppError('conflict', ALREADY_VERIFIED);
    await throttle(user.email);
    recordEvent(tx, 'VerificationEmailRequested', { userId: user.id });
    recordAudit(tx, actor, {
      action: 'user.resend_verification',
      targetType: 'user',
      targetId: user.id,
      after: { email: user.email },
    });
    return { email: user.email };
  });
}

export async function userMails(orm: Orm, id: string, paging: { page: number; per_page: number }) {
  const em = orm.em.fork() as Em;
  if (!(await em.findOne(User, { id }))) throw new AppError('not_found', USER_NOT_FOUND);
  return listMails(em, id, paging);
}
