import { defineEntity, p } from '@mikro-orm/core';

/**
 * One row per e-mail that must go out once. The unique key (event id + template) makes a job that
 * runs twice, or two workers racing, send one e-mail: see mail/service.ts.
 */
export const MailDeliverySchema = defineEntity({
  name: 'MailDelivery',
  tableName: 'mail_deliveries',
  properties: {
    id: p.uuid().primary(),
    key: p.string().length(200).unique('mail_deliveries_key_unique'),
    template: p.string().length(64),
    recipient: p.string().length(254),
    subject: p.string().length(300),
    messageId: p.string().fieldName('message_id').nullable(),
    sentAt: p.datetime().fieldName('sent_at'),
  },
});
export class MailDelivery extends MailDeliverySchema.class {}
MailDeliverySchema.setClass(MailDelivery);
