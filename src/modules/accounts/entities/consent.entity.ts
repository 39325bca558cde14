import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../../db/columns.ts';
import { User } from './user.entity.ts';

const CONSENT_SOURCES = ['registration', 'profile', 'purchase', 'unsubscribe', 'admin'] as const;
export type ConsentSource = (typeof CONSENT_SOURCES)[number];

/**
 * Every change of a member's choice to receive announcements (特定電子メール法: proof of consent).
 * No foreign key: the record outlives the account.
 */
const ConsentChangeSchema = defineEntity({
  name: 'ConsentChange',
  tableName: 'consent_changes',
  indexes: [
    {
      name: 'consent_changes_user_id_index',
      expression: 'create index "consent_changes_user_id_index" on "consent_changes" ("user_id", "created_at")',
    },
  ],
  properties: {
    id: p.uuid().primary(),
    userId: p.string().length(255).fieldName('user_id'),
    distribution: p.boolean(),
    source: p.string().length(20).$type<ConsentSource>(),
    createdAt: createdAt(),
  },
});
export class ConsentChange extends ConsentChangeSchema.class {}
ConsentChangeSchema.setClass(ConsentChange);

/** The member's unsubscribe link token: random, unguessable, made when their first announcement is sent. */
const UnsubscribeTokenSchema = defineEntity({
  name: 'UnsubscribeToken',
  tableName: 'unsubscribe_tokens',
  properties: {
    token: p.string().length(64).primary(),
    user: () => p.manyToOne(User).fieldName('user_id').unique('unsubscribe_tokens_user_id_unique').deleteRule('cascade'),
    createdAt: p.datetime().fieldName('created_at').defaultRaw('now()'),
  },
});
export class UnsubscribeToken extends UnsubscribeTokenSchema.class {}
UnsubscribeTokenSchema.setClass(UnsubscribeToken);
