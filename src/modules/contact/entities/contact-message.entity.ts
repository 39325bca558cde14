import { defineEntity, p } from '@mikro-orm/core';

/** One お問い合わせ as sent: kept so the mail job (and a resend) reads it by id, never from the event. */
const ContactMessageSchema = defineEntity({
  name: 'ContactMessage',
  tableName: 'contact_messages',
  properties: {
    id: p.uuid().primary(),
    userId: p.string().length(255).fieldName('user_id').nullable(),
    name: p.string().length(100),
    email: p.string().length(254),
    category: p.string().length(40),
    orderNumber: p.string().length(40).fieldName('order_number').nullable(),
    message: p.text(),
    /** Sent by a signed-in member from their own verified address: the acknowledgement may quote it. */
    ownAddress: p.boolean().fieldName('own_address').default(false),
    createdAt: p.datetime().fieldName('created_at').defaultRaw('now()'),
  },
});
export class ContactMessage extends ContactMessageSchema.class {}
ContactMessageSchema.setClass(ContactMessage);
