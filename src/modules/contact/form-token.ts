import { createHmac, timingSafeEqual } from 'node:crypto';

/** Faster than a person can read the form and type a question: a script. */
export const MIN_FILL_MS = 3_000;
const MAX_AGE_MS = 24 * 3_600_000;

const sign = (secret: string, issuedAt: number) =>
  createHmac('sha256', secret).update(`contact-form:${issuedAt}`).digest('base64url');

export const issueFormToken = (secret: string, now = Date.now()) => `${now}.${sign(secret, now)}`;

export type FormTokenState = 'ok' | 'missing' | 'too-fast' | 'expired';

export function checkFormToken(secret: string, token: string, now = Date.now()): FormTokenState {
  const [issued, mac] = token.split('.');
  const issuedAt = Number(issued);
  if (!issued || !mac || !Number.isSafeInteger(issuedAt)) return 'missing';
  const expected = Buffer.from(sign(secret, issuedAt));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'missing';
  if (now - issuedAt < MIN_FILL_MS) return 'too-fast';
  if (now - issuedAt > MAX_AGE_MS) return 'expired';
  return 'ok';
}
