import { randomUUID } from 'node:crypto';
import { betterAuth } from 'better-auth';
import { admin } from 'better-auth/plugins';
import type { Kysely } from 'kysely';
import { hashPassword, verifyPassword } from './password.ts';
import { REFRESH_AFTER_SECONDS, SESSION_SECONDS } from './session.ts';

export const HOST_COOKIE_PREFIX = '__Host-better-auth';

export interface AuthOptions {
  // biome-ignore lint/suspicious/noExplicitAny: better-auth takes an untyped Kysely
  db: Kysely<any>;
  secret: string;
  baseUrl: string;
  secureCookies: boolean;
}

/**
 * better-auth owns sessions and credentials. Its tables are MikroORM entities (user.entity.ts) so
 * one set of migrations creates them; here their snake_case columns are mapped for better-auth.
 */
export function createAuth(options: AuthOptions) {
  return betterAuth({
    secret: options.secret,
    baseURL: options.baseUrl,
    basePath: '/api/auth',
    trustedOrigins: [options.baseUrl],
    database: { db: options.db, type: 'postgres' },
    user: {
      modelName: 'users',
      fields: { emailVerified: 'email_verified', createdAt: 'created_at', updatedAt: 'updated_at' },
      additionalFields: {
        lastName: { type: 'string', fieldName: 'last_name', required: false, input: false, defaultValue: '' },
        firstName: { type: 'string', fieldName: 'first_name', required: false, input: false, defaultValue: '' },
      },
    },
    session: {
      modelName: 'sessions',
      fields: {
        userId: 'user_id',
        expiresAt: 'expires_at',
        ipAddress: 'ip_address',
        userAgent: 'user_agent',
        createdAt: 'created_at',
        updatedAt: 'updated_at',
      },
      expiresIn: SESSION_SECONDS,
      updateAge: REFRESH_AFTER_SECONDS,
      // Never serve the session from a signed cookie: a revoked session or role must take effect at once.
      cookieCache: { enabled: false },
    },
    account: {
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
    },
    verification: {
      modelName: 'verifications',
      fields: { expiresAt: 'expires_at', createdAt: 'created_at', updatedAt: 'updated_at' },
    },
    emailAndPassword: {
      enabled: true,
      requireEmailVerification: true,
      minPasswordLength: 8,
      maxPasswordLength: 72,
      password: { hash: hashPassword, verify: ({ hash, password }) => verifyPassword(hash, password) },
    },
    logger: { level: 'error' },
    // Sign-in is rate-limited by our own Redis limiter on /api/login (see accounts/routes.ts).
    rateLimit: { enabled: false },
    advanced: {
      // In production every better-auth cookie is `__Host-`: Secure, Path=/, no Domain, so no sibling
      // host or plain-HTTP page can set or shadow it (better-auth's own `__Secure-` prefix allows a
      // Domain). better-auth puts its secure prefix before ours, so that one is off and ours is the prefix.
      useSecureCookies: false,
      cookiePrefix: options.secureCookies ? HOST_COOKIE_PREFIX : 'better-auth',
      defaultCookieAttributes: { httpOnly: true, sameSite: 'lax', secure: options.secureCookies },
      database: { generateId: () => randomUUID() },
    },
    plugins: [
      admin({
        defaultRole: 'user',
        adminRoles: ['admin'],
        schema: {
          user: { fields: { banReason: 'ban_reason', banExpires: 'ban_expires' } },
          session: { fields: { impersonatedBy: 'impersonated_by' } },
        },
      }),
    ],
  });
}

export type Auth = ReturnType<typeof createAuth>;
