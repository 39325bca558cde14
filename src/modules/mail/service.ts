import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.ts';
import type { MailStatus } from './entities/mail-delivery.entity.ts';
import { type MailKind, mailKindLabel } from './kinds.ts';
import type { Mailer, MailMessage } from './mailer.ts';

export type SendResult = 'sent' | 'skipped';

const MAX_ERROR_LENGTH = 2000;

/**
 * Sends `message` at most once for `key` (event id + kind) and keeps each attempt in the mail log of
 * `userId`, the member it is for (null: nobody, e.g. the receipt of a deleted account).
 *
 * 1. The row is put on record ('sending') before anything goes out.
 * 2. A transaction claims it — an UPDATE that matches only a row not yet sent — and stays open while
 *    SMTP runs, holding the row lock: a concurrent run of the same job waits there, then finds the
 *    row sent and skips. Success marks it sent in the same transaction.
 * 3. When SMTP (or the commit) fails, the claim rolls back and the failure is written by a separate
 *    statement — unless a concurrent run sent the e-mail meanwhile — so the retry sends, and the log
 *    shows what happened (status, error, attempts, failed_at).
 */
export async function sendOnce(
  { em, mailer }: { em: Em; mailer: Mailer },
  key: string,
  template: MailKind,
  userId: string | null | undefined,
  message: MailMessage,
): Promise<SendResult> {
  const db = em.fork();
  await db.execute(
    `insert into mail_deliveries (id, key, template, user_id, recipient, subject, status, attempts, created_at)
     values (?, ?, ?, ?, ?, ?, 'sending', 0, now()) on conflict (key) do nothing`,
    [randomUUID(), key, template, userId ?? null, message.to, message.subject],
  );
  try {
    return await db.transactional(async (tx) => {
      const claimed = await tx.execute<{ id: string }[]>(
        `update mail_deliveries set status = 'sending', attempts = attempts + 1, recipient = ?, subject = ?
         where key = ? and status <> 'sent' returning id`,
        [message.to, message.subject, key],
      );
      const row = claimed[0];
      if (!row) return 'skipped';
      const info = await mailer.send(message);
      await tx.execute(`update mail_deliveries set status = 'sent', message_id = ?, sent_at = now(), error = null where id = ?`, [
        info.messageId,
        row.id,
      ]);
      return 'sent';
    });
  } catch (error) {
    const text = (error instanceof Error ? error.message : String(error)).slice(0, MAX_ERROR_LENGTH);
    // The job reports the original error (and is retried); recording it is best effort.
    await db
      .execute(
        `update mail_deliveries set status = 'failed', attempts = attempts + 1, error = ?, failed_at = now()
         where key = ? and status <> 'sent'`,
        [text, key],
      )
      .catch(() => undefined);
    throw error;
  }
}

interface MailRow {
  id: string;
  template: string;
  recipient: string;
  subject: string;
  status: MailStatus;
  attempts: number;
  error: string | null;
  sent_at: Date | string | null;
  failed_at: Date | string | null;
  created_at: Date | string;
}

const iso = (date: Date | string | null) => (date ? new Date(date).toISOString() : null);

/** The e-mails sent (or tried) for one member, newest first. */
export async function listMails(em: Em, userId: string, paging: { page: number; per_page: number }) {
  const db = em.fork();
  const [count] = await db.execute<{ n: number }[]>('select count(*)::int as n from mail_deliveries where user_id = ?', [userId]);
  const rows = await db.execute<MailRow[]>(
    `select id, template, recipient, subject, status, attempts, error, sent_at, failed_at, created_at
     from mail_deliveries where user_id = ? order by created_at desc, id desc limit ? offset ?`,
    [userId, paging.per_page, (paging.page - 1) * paging.per_page],
  );
  return {
    mails: rows.map((row) => ({
      id: row.id,
      kind: row.template,
      kind_label: mailKindLabel(row.template),
      recipient: row.recipient,
      subject: row.subject,
      status: row.status,
      sent_at: iso(row.sent_at),
      failed_at: iso(row.failed_at),
      error: row.error,
      attempts: row.attempts,
      created_at: iso(row.created_at),
    })),
    total: count?.n ?? 0,
    page: paging.page,
    per_page: paging.per_page,
  };
}
