import { randomInt } from 'node:crypto';

/**
 * Recovery codes (docs/decisions/0027-two-factor-and-passkeys.md): ten of `XXXXX-XXXXX` from an
 * alphabet without look-alikes — no 0/O, 1/I/L — in capitals, as stored. 31^10 ≈ 2^49.5 each.
 */
const RECOVERY_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const COUNT = 10;
const LENGTH = 10;

/** better-auth's `customBackupCodesGenerate`. */
export function generateRecoveryCodes(): string[] {
  return Array.from({ length: COUNT }, () => {
    const code = Array.from({ length: LENGTH }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
    return `${code.slice(0, 5)}-${code.slice(5)}`;
  });
}

/** A code as typed — any case, with or without the hyphen or spaces, full-width — in one comparable form. */
export function canonicalRecoveryCode(typed: string): string {
  const bare = typed
    .normalize('NFKC')
    .replace(/[\s\-‐‑‒–—―−ー]/g, '')
    .toUpperCase();
  return bare.length === LENGTH ? `${bare.slice(0, 5)}-${bare.slice(5)}` : bare;
}
