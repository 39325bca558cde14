import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../../db/columns.ts';
import { User } from './user.entity.ts';

export type TokenPurpose = 'verify-email' | 'reset-password' | 'change-email' | 'unlock-two-factor';

/**
 * A single-use, expiring token sent by e-mail. Only its SHA-256 is stored; `used_at` is set
 * atomically when it is consumed, so a link works once.
 */
const AccountTokenSchema = defineEntity({
  name: 'AccountToken',
  tableName: 'account_tokens',
  properties: {
    id: p.uuid().primary(),
    user: () => p.manyToOne(User).fieldName('user_id').deleteRule('cascade').index('account_tokens_user_id_index'),
    purpose: p.string().length(20),
    tokenHash: p.string().length(64).fieldName('token_hash').unique('account_tokens_token_hash_unique'),
    newEmail: p.string().length(254).fieldName('new_email').nullable(),
    expiresAt: p.datetime().fieldName('expires_at'),
    usedAt: p.datetime().fieldName('used_at').nullable(),
    createdAt: createdAt(),
  },
});
export class AccountToken extends AccountTokenSchema.class {}
AccountTokenSchema.setClass(AccountToken);
