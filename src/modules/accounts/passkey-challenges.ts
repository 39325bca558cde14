import type { Redis } from 'ioredis';

/**
 * Anonymous passkey sign-in challenges, kept in Redis for their 5 minutes instead of a `verifications`
 * row per call (anyone may ask for one). better-auth's passkey plugin writes the challenge through a
 * database hook (auth.ts) that hands it here; the sign-in call puts it back as a row just before the
 * plugin consumes it (sign-in.ts), so only a real sign-in attempt touches the table.
 */
export interface SignInChallenges {
  /** False when Redis cannot take it: the plugin then writes its row as usual. */
  keep(identifier: string, value: string, expiresAt: Date): Promise<boolean>;
  /** The challenge, once: a second call (a replay) finds nothing. */
  take(identifier: string): Promise<{ value: string; expiresAt: Date } | null>;
}

/** better-auth's path for a sign-in challenge (the endpoint the hook diverts). */
export const SIGN_IN_CHALLENGE_PATH = '/passkey/generate-authenticate-options';
/** The plugin's signed cookie naming the challenge (its `webAuthnChallengeCookie` default). */
export const CHALLENGE_COOKIE = 'better-auth-passkey';

export function redisSignInChallenges(redis: Redis, prefix: string): SignInChallenges {
  const keyOf = (identifier: string) => `${prefix}:passkey-challenge:${identifier}`;
  return {
    async keep(identifier, value, expiresAt) {
      const seconds = Math.ceil((expiresAt.getTime() - Date.now()) / 1000);
      if (seconds <= 0) return false;
      try {
        await redis.set(keyOf(identifier), JSON.stringify({ value, expiresAt: expiresAt.toISOString() }), 'EX', seconds);
        return true;
      } catch {
        return false;
      }
    },
    async take(identifier) {
      let raw: string | null;
      try {
        raw = await redis.getdel(keyOf(identifier));
      } catch {
        return null;
      }
      if (!raw) return null;
      const parsed = JSON.parse(raw) as { value: string; expiresAt: string };
      return { value: parsed.value, expiresAt: new Date(parsed.expiresAt) };
    },
  };
}
