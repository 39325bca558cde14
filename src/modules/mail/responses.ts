import * as v from 'valibot';
import { operation, pageEntries, pathIds, timestamp } from '../../http/openapi.ts';
import { MailsQuery } from './schemas.ts';

/** One e-mail the shop sent or tried to send (a member's history, the failed-mail view). */
export const MailAnswer = v.pipe(
  v.object({
    id: v.string(),
    kind: v.string(),
    kind_label: v.string(),
    recipient: v.string(),
    subject: v.string(),
    status: v.picklist(['sending', 'sent', 'failed']),
    permanent: v.boolean(),
    sent_at: v.nullable(timestamp()),
    failed_at: v.nullable(timestamp()),
    error: v.nullable(v.string()),
    attempts: v.number(),
    message_id: v.nullable(v.string()),
    created_at: timestamp(),
  }),
  v.metadata({ ref: 'Mail' }),
);

export const MailPageAnswer = v.object({ mails: v.array(MailAnswer), ...pageEntries });

/** A mail of the failed-mail view: also whose it is. */
const AdminMail = v.object({ ...MailAnswer.entries, user_id: v.nullable(v.string()) });

export const mailDocs = {
  summary: operation('get', {
    summary: '送信できていないメールの件数',
    tags: ['メール'],
    access: 'admin',
    permission: 'mails:read',
    answers: {
      200: v.object({
        summary: v.object({
          failed_for_good: v.number(),
          stuck: v.number(),
          retrying: v.number(),
          lease_seconds: v.number(),
          workers_alive: v.nullable(v.boolean()),
        }),
      }),
    },
  }),
  list: operation('get', {
    summary: '送信に失敗した・送信中のメール',
    tags: ['メール'],
    access: 'admin',
    permission: 'mails:read',
    query: MailsQuery,
    answers: { 200: v.object({ mails: v.array(AdminMail), ...pageEntries }) },
  }),
  resend: operation('post', {
    summary: 'メールを再送信する',
    tags: ['メール'],
    access: 'admin',
    permission: 'mails:resend',
    path: { id: pathIds.uuid },
    answers: { 200: v.object({ mail: AdminMail, message: v.string() }) },
    errors: [409],
  }),
};
