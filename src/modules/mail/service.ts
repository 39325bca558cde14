import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.ts';
import type { Mailer, MailMessage } from './mailer.ts';

export type SendResult = 'sent' | 'skipped';

/**
 * Sends `message` at most once for `key`. The delivery row is inserted first, in a transaction held
 * open while SMTP runs: a second run of the same job waits on the unique key, then sees the committed
 * row and skips; if sending fails the row rolls back and the retry sends.
 */
export async function sendOnce(em: Em, mailer: Mailer, key: string, template: string, message: MailMessage): Promise<SendResult> {
  return em.fork().transactional(async (tx) => {
    const inserted = await tx.execute<{ id: string }[]>(
      `insert into mail_deliveries (id, key, template, recipient, subject, sent_at)
       values (?, ?, ?, '', '', now()) on conflict (key) do nothing returning id`,
      [randomUUID(), key, template],
    );
    const row = inserted[0];
    if (!row) return 'skipped';
    const info = await mailer.send(message);
    await tx.execute('update mail_deliveries set message_id = ?, recipient = ?, subject = ? where id = ?', [
      info.messageId,
      message.to,
      message.subject,
      row.id,
    ]);
    return 'sent';
  });
}
