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
export function acceptedSecrets(current: string): readonly string[] {
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

const sign = (secret: string, data: string) => createHmac('sha256', secret).update(data).digest('base64');

/** A cookie value as better-auth's `setSignedCookie` writes it. */
export const signedCookie = (data: string, secret: string) => encodeURIComponent(`${data}.${sign(secret, data)}`);

/**
 * The Cookie header with every `value.signature` cookie a previous secret signed signed again under
 * `current` (undefined: nothing to change), so better-auth's own checks, which know one secret only,
 * accept it: the trusted-device cookie and the session cookie on its endpoints.
 */
export function resignedCookieHeader(header: string, current: string): string | undefined {
  const previous = previousOf.get(current);
  if (!previous?.length) return undefined;
  let changed = false;
  const parts = header.split(';').map((part) => {
    const eq = part.indexOf('=');
    let value: string;
    try {
      value = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return part;
    }
    const dot = value.lastIndexOf('.');
    if (eq < 1 || dot < 1) return part;
    const data = value.slice(0, dot);
    const signature = Buffer.from(value.slice(dot + 1), 'base64');
    const fresh = sign(current, data);
    // Already current, or signed by no accepted secret (better-auth then refuses it as before).
    if (signature.length !== 32 || timingSafeEqual(Buffer.from(fresh, 'base64'), signature)) return part;
    if (!signedByAny(current, data, signature)) return part;
    changed = true;
    return `${part.slice(0, eq).trim()}=${signedCookie(data, current)}`;
  });
  return changed ? parts.join('; ') : undefined;
}
