import { defineEntity, p } from '@mikro-orm/core';
import { User } from './user.entity.ts';

/**
 * A member's TOTP secret and recovery codes, written by better-auth's twoFactor plugin (model
 * `two_factors`, fields mapped in auth.ts): both encrypted with AUTH_SECRET. `verified` stays false
 * between setup and the first correct code; the plugin's own lockout counts failures here too.
 */
const TwoFactorSchema = defineEntity({
  name: 'TwoFactor',
  tableName: 'two_factors',
  properties: {
    id: p.string().primary(),
    user: () => p.manyToOne(User).fieldName('user_id').deleteRule('cascade').unique('two_factors_user_id_unique'),
    secret: p.text().hidden(),
    backupCodes: p.text().fieldName('backup_codes').hidden(),
    verified: p.boolean().default(true),
    failedVerificationCount: p.integer().fieldName('failed_verification_count').default(0),
    lockedUntil: p.datetime().fieldName('locked_until').nullable(),
  },
});
export class TwoFactor extends TwoFactorSchema.class {}
TwoFactorSchema.setClass(TwoFactor);

/** A WebAuthn credential (passkey), written by better-auth's passkey plugin (model `passkeys`). */
const PasskeySchema = defineEntity({
  name: 'Passkey',
  tableName: 'passkeys',
  properties: {
    id: p.string().primary(),
    name: p.text().nullable(),
    publicKey: p.text().fieldName('public_key'),
    user: () => p.manyToOne(User).fieldName('user_id').deleteRule('cascade').index('passkeys_user_id_index'),
    credentialId: p.text().fieldName('credential_id').unique('passkeys_credential_id_unique'),
    counter: p.integer(),
    deviceType: p.text().fieldName('device_type'),
    backedUp: p.boolean().fieldName('backed_up'),
    transports: p.text().nullable(),
    aaguid: p.text().nullable(),
    createdAt: p.datetime().fieldName('created_at').nullable(),
  },
});
export class Passkey extends PasskeySchema.class {}
PasskeySchema.setClass(Passkey);

/**
 * Escalation of two-factor guessing (docs/decisions/0027-two-factor-and-passkeys.md): how many times in
 * a row the account's sign-in failure window was filled at the code step, and since when codes are
 * refused (after the third) until the owner follows the mailed unlock link or resets the password.
 */
const TwoFactorLockSchema = defineEntity({
  name: 'TwoFactorLock',
  tableName: 'two_factor_locks',
  properties: {
    user: () => p.manyToOne(User).fieldName('user_id').primary().deleteRule('cascade'),
    lockouts: p.integer().default(0),
    lockedAt: p.datetime().fieldName('locked_at').nullable(),
    updatedAt: p.datetime().fieldName('updated_at').defaultRaw('now()'),
  },
});
export class TwoFactorLock extends TwoFactorLockSchema.class {}
TwoFactorLockSchema.setClass(TwoFactorLock);
