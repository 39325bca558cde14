import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** AUTH_SECRET rotation: what a previous secret signed stays accepted; all that is new uses AUTH_SECRET (decision 0043). */
const previousOf = new Map<string, readonly string[]>();

/** Registers `previous` as accepted beside `current`, and returns `current`. */
export function acceptPreviousSecrets(current: string, previous: readonly string[]): string {
  previousOf.set(
    current,
    previous.filter((secret) => secret !== current),
  );
  return current;
}

/** The secrets a signature may have been made with: the current one first. */
function acceptedSecrets(current: string): readonly string[] {
  return [current, ...(previousOf.get(current) ?? [])];
}

/** Whether `signature` is HMAC-SHA256 of `data` under any accepted secret (`encode` as the signer wrote it). */
export function signedByAny(
  current: string,
  data: string,
  signature: Buffer,
  expected: (secret: string, data: string) => Buffer = (secret, d) => createHmac('sha256', secret).update(d).digest(),
): boolean {
  return acceptedSecrets(current).some((secret) => {
    const wanted = expected(secret, data);
    return wanted.length === signature.length && timingSafeEqual(wanted, signature);
  });
}

/** A stable version number for a secret (better-auth's `$ba$<version>$` envelopes name the key by it). */
export function secretVersion(secret: string): number {
  return createHash('sha256').update(secret).digest().readUInt32BE(0) >>> 1;
}

/** better-auth's rotation: `secrets` open its envelopes; the oldest listed secret opens pre-envelope values. */
export function betterAuthSecrets(current: string): { secrets: { version: number; value: string }[]; legacy: string } {
  const all = acceptedSecrets(current);
  return {
    secrets: all.map((value) => ({ version: secretVersion(value), value })),
    legacy: all[all.length - 1] ?? current,
  };
}
