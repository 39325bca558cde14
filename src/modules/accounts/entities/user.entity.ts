import { defineEntity, p } from '@mikro-orm/core';
import { createdAt, updatedAt } from '../../../db/columns.ts';
import { nameKeyColumn } from '../../../db/like.ts';

/** better-auth reads and writes this table too; MikroORM owns its schema and migrations. */
const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  uniques: [
    {
      name: 'users_email_lower_unique',
      expression: 'create unique index "users_email_lower_unique" on "users" (lower("email"))',
    },
  ],
  // docs/decisions/0032-kana-and-name-folding.md
  indexes: [
    { name: 'users_created_at_index', expression: 'create index "users_created_at_index" on "users" ("created_at", "id")' },
    {
      name: 'users_search_key_trgm_index',
      expression: 'create index "users_search_key_trgm_index" on "users" using gin ("search_key" gin_trgm_ops)',
    },
    {
      name: 'users_search_grams_index',
      expression: 'create index "users_search_grams_index" on "users" using gin ("search_grams")',
    },
    { name: 'users_kana_sort_index', expression: 'create index "users_kana_sort_index" on "users" ("kana_sort", "id")' },
    {
      name: 'users_email_prefix_index',
      expression: 'create index "users_email_prefix_index" on "users" ("email" text_pattern_ops)',
    },
    {
      name: 'users_email_trgm_index',
      expression: 'create index "users_email_trgm_index" on "users" using gin ("email" gin_trgm_ops)',
    },
  ],
  properties: {
    id: p.string().primary(),
    // Stored lower-cased (better-auth normalises); the unique index on lower(email) guards the rule.
    email: p.string().length(254),
    emailVerified: p.boolean().fieldName('email_verified').default(false),
    name: p.string().length(120),
    lastName: p.string().length(50).fieldName('last_name').default(''),
    firstName: p.string().length(50).fieldName('first_name').default(''),
    // 全角カタカナ (accounts/kana.ts); null when the member has not given it (seed clients, older accounts).
    lastNameKana: p.string().length(50).fieldName('last_name_kana').nullable(),
    firstNameKana: p.string().length(50).fieldName('first_name_kana').nullable(),
    nameKey: p.text().fieldName('name_key').generated(nameKeyColumn('last_name', 'first_name')).nullable(),
    firstKey: p.text().fieldName('first_key').generated(nameKeyColumn('first_name')).nullable(),
    // Kept by the trigger users_name_keys (migration 20261126030000), whoever writes the names.
    searchKey: p.text().fieldName('search_key').nullable(),
    searchGrams: p.array().fieldName('search_grams').nullable(),
    kanaSort: p.text().fieldName('kana_sort').collation('C').nullable(),
    lastSignInAt: p.datetime().fieldName('last_sign_in_at').nullable(),
    // 1 自衛隊 … 6 その他 (see affiliations.ts); null for administrators created by the CLI.
    affiliation: p.smallint().nullable(),
    affiliationName: p.string().length(100).fieldName('affiliation_name').default(''),
    affiliationOther: p.string().length(100).fieldName('affiliation_other').nullable(),
    distribution: p.boolean().default(true),
    pendingEmail: p.string().length(254).fieldName('pending_email').nullable(),
    image: p.text().nullable(),
    role: p.string().length(20).default('user'),
    banned: p.boolean().nullable().default(false),
    banReason: p.text().fieldName('ban_reason').nullable(),
    banExpires: p.datetime().fieldName('ban_expires').nullable(),
    twoFactorEnabled: p.boolean().fieldName('two_factor_enabled').default(false),
    // The member list's figures, kept from SalePaid/SaleRefunded (handlers/purchase-figures.ts).
    purchaseCount: p.integer().fieldName('purchase_count').default(0),
    paidTotal: p.bigint('number').fieldName('paid_total').default(0),
    lastPurchaseAt: p.datetime().fieldName('last_purchase_at').nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export class User extends UserSchema.class {}
UserSchema.setClass(User);

const SessionSchema = defineEntity({
  name: 'Session',
  tableName: 'sessions',
  properties: {
    id: p.string().primary(),
    token: p.string().unique('sessions_token_unique'),
    user: () => p.manyToOne(User).fieldName('user_id').deleteRule('cascade').index('sessions_user_id_index'),
    expiresAt: p.datetime().fieldName('expires_at'),
    ipAddress: p.text().fieldName('ip_address').nullable(),
    userAgent: p.text().fieldName('user_agent').nullable(),
    impersonatedBy: p.text().fieldName('impersonated_by').nullable(),
    // Written at most once a minute by the session reader (session.ts): the sessions list, admins' idle time.
    lastActiveAt: p.datetime().fieldName('last_active_at').nullable(),
    createdAt: p.datetime().fieldName('created_at'),
    updatedAt: p.datetime().fieldName('updated_at'),
  },
});
export class Session extends SessionSchema.class {}
SessionSchema.setClass(Session);

const AccountSchema = defineEntity({
  name: 'Account',
  tableName: 'accounts',
  properties: {
    id: p.string().primary(),
    accountId: p.text().fieldName('account_id'),
    providerId: p.text().fieldName('provider_id'),
    user: () => p.manyToOne(User).fieldName('user_id').deleteRule('cascade').index('accounts_user_id_index'),
    accessToken: p.text().fieldName('access_token').nullable(),
    refreshToken: p.text().fieldName('refresh_token').nullable(),
    idToken: p.text().fieldName('id_token').nullable(),
    accessTokenExpiresAt: p.datetime().fieldName('access_token_expires_at').nullable(),
    refreshTokenExpiresAt: p.datetime().fieldName('refresh_token_expires_at').nullable(),
    scope: p.text().nullable(),
    password: p.text().nullable().hidden(),
    createdAt: p.datetime().fieldName('created_at'),
    updatedAt: p.datetime().fieldName('updated_at'),
  },
});
export class Account extends AccountSchema.class {}
AccountSchema.setClass(Account);

const VerificationSchema = defineEntity({
  name: 'Verification',
  tableName: 'verifications',
  properties: {
    id: p.string().primary(),
    identifier: p.text().index('verifications_identifier_index'),
    value: p.text(),
    expiresAt: p.datetime().fieldName('expires_at'),
    createdAt: p.datetime().fieldName('created_at'),
    updatedAt: p.datetime().fieldName('updated_at'),
  },
});
export class Verification extends VerificationSchema.class {}
VerificationSchema.setClass(Verification);
