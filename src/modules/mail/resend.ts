import { randomUUID } from 'node:crypto';
import { db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import type { DomainEvent } from '../../events/contracts.ts';
import type { Queues } from '../../events/queues.ts';
import { AppError } from '../../http/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import type { MailStatus } from './entities/mail-delivery.entity.ts';
import { COLUMNS, type MailRow, mailDto, stuck } from './mail-log.ts';

export const MAIL_NOT_FOUND = 'メールが見つかりませんでした。';

/**
 * An operator sends a failed e-mail — or one stuck in 'sending' past its claim lease — again: the
 * delivery is put back to 'sending' (unclaimed, no longer permanent), audited, and its event's job
 * enqueued under a new job id. The job renders the e-mail
 * afresh and sends it with the delivery's own Message-ID; other e-mails of the event, sent already,
 * are skipped. Should Redis be unreachable, the row goes back to failed and the answer is 503.
 */
export async function resendMail(deps: { orm: Orm; queues: Queues; log: Logger }, actor: Actor, id: string) {
  const em = deps.orm.em.fork() as Em;
  const db = kysely(em);
  const found = await db
    .selectFrom('mail_deliveries')
    .select((eb) => [...COLUMNS, 'key', 'event', stuck(eb).as('stuck')])
    .$narrowType<{ status: MailStatus; stuck: boolean }>()
    .where('id', '=', id)
    .executeTakeFirst();
  if (!found) throw new AppError('not_found', MAIL_NOT_FOUND);
  if (found.status !== 'failed' && !found.stuck) {
    throw new AppError(
      'conflict',
      found.status === 'sent' ? 'このメールは送信済みです。' : 'このメールは送信中です。結果が出るまでお待ちください。',
    );
  }
  // The event to run again: kept on the delivery; for an older row, the data of its job, if Redis has it.
  const eventId = found.key.split(':')[0] ?? '';
  const stored = found.event as DomainEvent | null;
  const job = stored ? null : await deps.queues.mail.getJob(eventId).catch(() => undefined);
  const event = stored ?? (job?.data as DomainEvent | undefined) ?? null;
  if (!event) throw new AppError('conflict', 'このメールは送信の元になった記録が残っていないため、再送信できません。');

  await em.transactional(async (tx) => {
    const updated = await kysely(tx)
      .updateTable('mail_deliveries')
      .set({ status: 'sending', permanent: false, claimed_at: null })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('status', '=', 'failed'), stuck(eb)]))
      .returning('id')
      .execute();
    if (!updated[0]) throw new AppError('conflict');
    recordAudit(tx, actor, {
      action: 'mail.resend',
      targetType: 'mail',
      targetId: id,
      before: {
        status: found.status,
        ...(found.stuck ? { stuck: true } : {}),
        permanent: found.permanent,
        error: found.error,
        attempts: found.attempts,
      },
      after: { status: 'sending' },
    });
  });
  try {
    await deps.queues.mail.add(event.name, event, { jobId: `${event.id}-resend-${randomUUID()}` });
  } catch (error) {
    // Redis is unreachable: nothing would send it, so it goes back to failed (as it was) and the
    // operator is told to try again.
    deps.log.warn('resend: could not enqueue the mail job', { mail: id, error: String(error) });
    await db
      .updateTable('mail_deliveries')
      .set({ status: 'failed', permanent: found.permanent })
      .where('id', '=', id)
      .where('status', '=', 'sending')
      .where('claimed_at', 'is', null)
      .execute()
      .catch(() => undefined);
    throw new AppError('unavailable', 'ただいま再送信できません。しばらく時間をおいてから再度お試しください。');
  }
  const after = await db
    .selectFrom('mail_deliveries')
    .select(COLUMNS)
    .$narrowType<{ status: MailStatus }>()
    .where('id', '=', id)
    .executeTakeFirst();
  return { mail: { ...mailDto(after as MailRow), user_id: after?.user_id ?? null } };
}
