import { randomUUID } from 'node:crypto';
import { passkey } from '@better-auth/passkey';
import { betterAuth } from 'better-auth';
import { APIError } from 'better-auth/api';
import { admin, twoFactor } from 'better-auth/plugins';
import type { Kysely, KyselyPlugin, QueryResult, UnknownRow } from 'kysely';
import { ac, roles } from '../../http/access.ts';
import { betterAuthSecrets } from '../../lib/secrets.ts';
import { SIGN_IN_CHALLENGE_PATH, type SignInChallenges } from './passkey-challenges.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { generateRecoveryCodes } from './recovery-codes.ts';

const HOST_COOKIE_PREFIX = '__Host-better-auth';

export interface AuthOptions {
  // biome-ignore lint/suspicious/noExplicitAny: better-auth takes an untyped Kysely
  db: Kysely<any>;
  secret: string;
  baseUrl: string;
  secureCookies: boolean;
  signInChallenges?: SignInChallenges;
}

export const USER_NOT_VERIFIED = 'USER_NOT_VERIFIED';
export const NOT_VERIFIED_MESSAGE =
  'この端末のパスキーは、生体認証や PIN による本人確認に対応していないため使えません。本人確認のできる端末でお試しください。';

/** The plugin verifies with `requireUserVerification: false`, so the UV flag is checked here (decision 0027). */
function requireUserVerified(verified: boolean | undefined, status: 'BAD_REQUEST' | 'UNAUTHORIZED') {
  if (!verified) throw new APIError(status, { code: USER_NOT_VERIFIED, message: NOT_VERIFIED_MESSAGE });
}

export const SESSION_SECONDS = 7 * 24 * 3600;
const REFRESH_AFTER_SECONDS = 24 * 3600;

const TOTP_ISSUER = 'ライセンスストア';
/** 「この端末を30日間信頼する」 (never for administrators: accounts/sign-in.ts). */
const TRUST_DEVICE_SECONDS = 30 * 24 * 3600;

const TIMESTAMPS = new Set(['expires_at', 'created_at', 'updated_at', 'locked_until', 'ban_expires']);

/** better-auth's plugins compare timestamps with `Date`s; the shop's Kysely returns text. */
const datesForBetterAuth: KyselyPlugin = {
  transformQuery: (args) => args.node,
  async transformResult(args: { result: QueryResult<UnknownRow> }) {
    for (const row of args.result.rows) {
      for (const key of Object.keys(row)) {
        const value = row[key];
        if (typeof value === 'string' && TIMESTAMPS.has(key)) row[key] = new Date(value);
      }
    }
    return args.result;
  },
};

function challengeHooks(challenges: SignInChallenges | undefined) {
  return {
    verification: {
      create: {
        before: async (data: { identifier: string; value: string; expiresAt: Date }, context: { path?: string } | null) => {
          if (!challenges || context?.path !== SIGN_IN_CHALLENGE_PATH) return;
          return (await challenges.keep(data.identifier, data.value, new Date(data.expiresAt))) ? false : undefined;
        },
      },
    },
  };
}

function passkeyPlugin(baseUrl: string) {
  return passkey({
    rpID: new URL(baseUrl).hostname,
    rpName: TOTP_ISSUER,
    origin: new URL(baseUrl).origin,
    // Registration asks for the device's own check; sign-in's options are answered by our route.
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    registration: {
      afterVerification: ({ verification }) => requireUserVerified(verification.registrationInfo?.userVerified, 'BAD_REQUEST'),
    },
    authentication: {
      afterVerification: ({ verification }) => requireUserVerified(verification.authenticationInfo?.userVerified, 'UNAUTHORIZED'),
    },
    schema: {
      passkey: {
        modelName: 'passkeys',
        fields: {
          publicKey: 'public_key',
          userId: 'user_id',
          credentialID: 'credential_id',
          deviceType: 'device_type',
          backedUp: 'backed_up',
          createdAt: 'created_at',
        },
      },
    },
  });
}

const USER_TABLE = {
  modelName: 'users',
  fields: { emailVerified: 'email_verified', createdAt: 'created_at', updatedAt: 'updated_at' },
  additionalFields: {
    lastName: { type: 'string', fieldName: 'last_name', required: false, input: false, defaultValue: '' },
    firstName: { type: 'string', fieldName: 'first_name', required: false, input: false, defaultValue: '' },
  },
} as const;

const SESSION_COLUMNS = {
  userId: 'user_id',
  expiresAt: 'expires_at',
  ipAddress: 'ip_address',
  userAgent: 'user_agent',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
} as const;

const ACCOUNT_TABLE = {
  modelName: 'accounts',
  fields: {
    accountId: 'account_id',
    providerId: 'provider_id',
    userId: 'user_id',
    accessToken: 'access_token',
    refreshToken: 'refresh_token',
    idToken: 'id_token',
    accessTokenExpiresAt: 'access_token_expires_at',
    refreshTokenExpiresAt: 'refresh_token_expires_at',
    createdAt: 'created_at',
    updatedAt: 'updated_at',
  },
} as const;

const VERIFICATION_TABLE = {
  modelName: 'verifications',
  fields: { expiresAt: 'expires_at', createdAt: 'created_at', updatedAt: 'updated_at' },
} as const;

function adminPlugin() {
  return admin({
    defaultRole: 'user',
    adminRoles: ['admin'],
    ac,
    roles,
    schema: {
      user: { fields: { banReason: 'ban_reason', banExpires: 'ban_expires' } },
      session: { fields: { impersonatedBy: 'impersonated_by' } },
    },
  });
}

function twoFactorPlugin() {
  return twoFactor({
    issuer: TOTP_ISSUER,
    trustDeviceMaxAge: TRUST_DEVICE_SECONDS,
    // Without look-alikes, compared in any case (recovery-codes.ts).
    backupCodeOptions: { amount: 10, length: 10, customBackupCodesGenerate: generateRecoveryCodes },
    schema: {
      user: { fields: { twoFactorEnabled: 'two_factor_enabled' } },
      twoFactor: {
        modelName: 'two_factors',
        fields: {
          backupCodes: 'backup_codes',
          userId: 'user_id',
          failedVerificationCount: 'failed_verification_count',
          lockedUntil: 'locked_until',
        },
      },
    },
  });
}

export function createAuth(options: AuthOptions) {
  const { secrets, legacy } = betterAuthSecrets(options.secret);
  return betterAuth({
    // Encrypted two-factor secrets and recovery codes: made under the first, read under any (rotation).
    secrets,
    secret: legacy,
    baseURL: options.baseUrl,
    basePath: '/api/auth',
    trustedOrigins: [options.baseUrl],
    database: { db: options.db.withPlugin(datesForBetterAuth), type: 'postgres' },
    user: USER_TABLE,
    session: {
      modelName: 'sessions',
      fields: SESSION_COLUMNS,
      expiresIn: SESSION_SECONDS,
      updateAge: REFRESH_AFTER_SECONDS,
      // Never serve the session from a signed cookie: a revoked session or role must take effect at once.
      cookieCache: { enabled: false },
      // No "fresh session" rule: adding a passkey asks for the password and code instead (decision 0027).
      freshAge: 0,
    },
    account: ACCOUNT_TABLE,
    verification: VERIFICATION_TABLE,
    emailAndPassword: {
      enabled: true,
      requireEmailVerification: true,
      minPasswordLength: 8,
      maxPasswordLength: 72,
      password: { hash: hashPassword, verify: ({ hash, password }) => verifyPassword(hash, password) },
    },
    logger: { level: 'error' },
    databaseHooks: challengeHooks(options.signInChallenges),
    // Sign-in is rate-limited by our own Redis limiter (accounts/sign-in.ts).
    rateLimit: { enabled: false },
    advanced: {
      // `__Host-` in production: no sibling host or plain-HTTP page can set or shadow the cookie.
      useSecureCookies: false,
      cookiePrefix: options.secureCookies ? HOST_COOKIE_PREFIX : 'better-auth',
      defaultCookieAttributes: { httpOnly: true, sameSite: 'lax', secure: options.secureCookies },
      database: { generateId: () => randomUUID() },
    },
    plugins: [adminPlugin(), twoFactorPlugin(), passkeyPlugin(options.baseUrl)],
  });
}

export type Auth = ReturnType<typeof createAuth>;

// Only this module's routes use better-auth, so it adds itself to AppDeps (decision 0012).
declare module '../../http/context.ts' {
  interface ModuleServices {
    auth: Auth;
  }
}
