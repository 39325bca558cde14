import { createHmac } from 'node:crypto';
import { parseEnvelope, symmetricDecrypt, symmetricEncrypt } from 'better-auth/crypto';
import { db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { acceptedSecrets, betterAuthSecrets, secretVersion, signedCookie } from '../../lib/secrets.ts';
import type { Auth } from './auth.ts';
import { signedCookieValue } from './session.ts';

type SecretConfig = { keys: Map<number, string>; currentVersion: number; legacySecret: string };

function secretConfig(current: string): SecretConfig {
  const { secrets, legacy } = betterAuthSecrets(current);
  return {
    keys: new Map(secrets.map((s) => [s.version, s.value])),
    currentVersion: secretVersion(current),
    legacySecret: legacy,
  };
}

/** A value better-auth encrypted, again under `current` (undefined: already so, or not encrypted at all). */
async function reencrypted(value: string, key: SecretConfig): Promise<string | undefined> {
  if (!value || value.startsWith('[')) return undefined;
  if (parseEnvelope(value)?.version === key.currentVersion) return undefined;
  return symmetricEncrypt({ key, data: await symmetricDecrypt({ key, data: value }) });
}

/**
 * Re-encrypts the two-factor secrets and recovery codes still under a previous secret
 * (AUTH_PREVIOUS_SECRETS) under AUTH_SECRET: one member's as they sign in, everyone's with
 * `npm run secrets:rotate`. A row no accepted secret decrypts is left as it is and counted.
 */
export async function reencryptTwoFactorSecrets(
  orm: Orm,
  current: string,
  userId?: string,
): Promise<{ reencrypted: number; unreadable: number }> {
  const key = secretConfig(current);
  let query = kysely(orm.em.fork() as Em)
    .selectFrom('two_factors')
    .select(['id', 'secret', 'backup_codes']);
  if (userId) query = query.where('user_id', '=', userId);
  const rows = await query.execute();
  let done = 0;
  let unreadable = 0;
  for (const row of rows) {
    try {
      const [secret, backupCodes] = await Promise.all([reencrypted(row.secret, key), reencrypted(row.backup_codes, key)]);
      if (secret === undefined && backupCodes === undefined) continue;
      await kysely(orm.em.fork() as Em)
        .updateTable('two_factors')
        .set({ ...(secret ? { secret } : {}), ...(backupCodes ? { backup_codes: backupCodes } : {}) })
        .where('id', '=', row.id)
        .where('secret', '=', row.secret)
        .execute();
      done++;
    } catch {
      unreadable++;
    }
  }
  return { reencrypted: done, unreadable };
}

const trustToken = (secret: string, userId: string, identifier: string) =>
  createHmac('sha256', secret).update(`${userId}!${identifier}`).digest('base64url');

/**
 * better-auth's trusted-device cookie holds an HMAC of the member and the trust record under the
 * secret of its day, which better-auth checks under AUTH_SECRET alone: one made under a previous
 * secret is made again under AUTH_SECRET before sign-in reads it (a copy of `headers`, or `headers`).
 */
export async function trustedDeviceUnderCurrentSecret(orm: Orm, auth: Auth, current: string, headers: Headers): Promise<Headers> {
  const name = (await auth.$context).createAuthCookie('trust_device').name;
  const [token, identifier] = signedCookieValue(headers, name, current)?.split('!') ?? [];
  if (!token || !identifier) return headers;
  const record = await kysely(orm.em.fork() as Em)
    .selectFrom('verifications')
    .select('value')
    .where('identifier', '=', identifier)
    .executeTakeFirst();
  if (!record) return headers;
  const [latest, ...previous] = acceptedSecrets(current);
  if (!latest || trustToken(latest, record.value, identifier) === token) return headers;
  if (!previous.some((secret) => trustToken(secret, record.value, identifier) === token)) return headers;
  const renewed = `${name}=${signedCookie(`${trustToken(current, record.value, identifier)}!${identifier}`, current)}`;
  const copy = new Headers(headers);
  const others = (headers.get('cookie') ?? '').split(';').filter((part) => part.split('=')[0]?.trim() !== name);
  copy.set('cookie', [...others.map((p) => p.trim()), renewed].join('; '));
  return copy;
}
