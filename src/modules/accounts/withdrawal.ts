import { LockMode } from '@mikro-orm/core';
import { db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { isStaffRole } from '../../http/access.ts';
import { AppError, validationError } from '../../http/errors.ts';
import { recordAudit } from '../audit/index.ts';
import { User } from './entities/user.entity.ts';
import { verifyPassword } from './password.ts';
import { credentialPassword } from './passwords.ts';
import { removeAccount, USER_NOT_FOUND } from './users.ts';

export const ADMIN_CANNOT_WITHDRAW =
  '管理者のアカウントは退会の手続きでは削除できません。別の管理者に権限を外してもらうか、削除を依頼してください。';

const WRONG_PASSWORD = 'パスワードが正しくありません。';

/**
 * 退会: a member deletes their own account after confirming their current password. Their personal
 * data goes exactly as with an administrator's delete (removeAccount); the address and name are
 * captured first (MemberWithdrew) so the goodbye e-mail can still reach them. Administrators cannot
 * (the last-administrator rule stays with the administrators' delete). Audited as the member's own act.
 */
export async function withdraw(orm: Orm, userId: string, password: string): Promise<void> {
  await transact(orm.em as Em, async (tx) => {
    const user = await tx.findOne(User, { id: userId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!user) throw new AppError('not_found', USER_NOT_FOUND);
    if (isStaffRole(user.role)) throw new AppError('forbidden', ADMIN_CANNOT_WITHDRAW);
    const current = await credentialPassword(kysely(tx), user.id);
    if (!current || !(await verifyPassword(current, password))) {
      throw validationError({ password: [WRONG_PASSWORD] }, WRONG_PASSWORD);
    }
    recordEvent(tx, 'MemberWithdrew', {
      userId: user.id,
      email: user.email,
      name: `${user.lastName} ${user.firstName}`.trim(),
    });
    await removeAccount(tx, user.id, 'member');
    // Only who and when: the profile itself is what the member asked us to erase.
    recordAudit(tx, { id: user.id, email: user.email }, { action: 'user.withdraw', targetType: 'user', targetId: user.id });
  });
}
