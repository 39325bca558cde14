import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../../db/columns.ts';

export type MailStatus = 'sending' | 'sent' | 'failed';

/**
 * One row per e-mail that must go out, and the member's mail log. The unique key (event id + kind)
 * makes a job that runs twice, or two workers racing, claim one delivery; every copy that may go out
 * carries the Message-ID derived from that key. A temporary failure stays on record for the next
 * attempt, a permanent one (`permanent`) until an operator resends: see mail/send.ts and
 * docs/decisions/0007-exactly-once-mail.md.
 */
export const MailDeliverySchema = defineEntity({
  name: 'MailDelivery',
  tableName: 'mail_deliveries',
  // A member's mail log, newest first.
  indexes: [
    {
      name: 'mail_deliveries_user_id_index',
      expression: 'create index "mail_deliveries_user_id_index" on "mail_deliveries" ("user_id", "created_at" desc, "id" desc)',
    },
    // The mails about one record (the order detail: `sale:16`, `checkout:<uuid>`).
    {
      name: 'mail_deliveries_about_index',
      expression:
        'create index "mail_deliveries_about_index" on "mail_deliveries" ("about", "created_at") where "about" is not null',
    },
    // Failed (or unsent) mails newest first: the failed-mail view.
    {
      name: 'mail_deliveries_unsent_index',
      expression:
        'create index "mail_deliveries_unsent_index" on "mail_deliveries" ("created_at" desc, "id" desc) where status <> \'sent\'',
    },
  ],
  properties: {
    id: p.uuid().primary(),
    key: p.string().length(200).unique('mail_deliveries_key_unique'),
    template: p.string().length(64),
    // The member the e-mail is for (a plain id: the accounts module owns users); null when there is none.
    userId: p.string().length(255).fieldName('user_id').nullable(),
    recipient: p.string().length(254),
    // What the mail is about, as its sender names it (`sale:16`, `checkout:<uuid>`); null: nothing in particular.
    about: p.string().length(100).nullable(),
    subject: p.string().length(300),
    status: p.string().length(16).$type<MailStatus>().default('sending'),
    attempts: p.integer().default(0),
    error: p.text().nullable(),
    messageId: p.string().fieldName('message_id').nullable(),
    sentAt: p.datetime().fieldName('sent_at').nullable(),
    failedAt: p.datetime().fieldName('failed_at').nullable(),
    // When a worker last claimed it for sending: a claim younger than the lease is left alone.
    claimedAt: p.datetime().fieldName('claimed_at').nullable(),
    // The server refused it for good (SMTP 5xx): not retried until an operator resends it.
    permanent: p.boolean().default(false),
    // The event whose job sends it ({ id, name, occurredAt, payload }), for an operator's resend.
    event: p.json<Record<string, unknown>>().nullable(),
    createdAt: createdAt(),
  },
});
export class MailDelivery extends MailDeliverySchema.class {}
MailDeliverySchema.setClass(MailDelivery);
