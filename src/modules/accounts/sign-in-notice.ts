import { LIMITS } from '../../config/limits.ts';
import type { Em } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import type { AppDeps } from '../../http/context.ts';
import { findUserByEmail } from './users.ts';

type NoticeDeps = Pick<AppDeps, 'orm' | 'rateLimit'>;

/**
 * Sign-in to `email` just reached its failure limit: its owner (if the address has an account) gets
 * the 「ログインを一時的に制限しました」 notice — at most once per account in 6 hours, and only while
 * their mailbox is under its hourly limit (docs/decisions/0014-throttles.md), so nobody can make the
 * shop mail a member by failing their sign-in on purpose.
 */
export async function noteSignInThrottled(deps: NoticeDeps, email: string): Promise<void> {
  const user = await findUserByEmail(deps.orm.em.fork() as Em, email);
  if (!user) return;
  const notice = await deps.rateLimit.count(LIMITS.signInNoticePerAccount, user.id);
  if (notice && notice.count > LIMITS.signInNoticePerAccount.limit) return;
  const mailbox = await deps.rateLimit.count(LIMITS.mailPerRecipient, user.email.toLowerCase());
  if (mailbox && mailbox.count > LIMITS.mailPerRecipient.limit) return;
  await transact(deps.orm.em as Em, async (tx) => {
    recordEvent(tx, 'SignInThrottled', { userId: user.id });
  });
}
