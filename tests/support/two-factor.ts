import { createHmac } from 'node:crypto';

/**
 * Two-factor for tests: TOTP codes computed from an `otpauth://` secret with node:crypto (RFC 6238:
 * HMAC-SHA1, 30 s steps, 6 digits), and the secrets of the administrators enrolled in this test file,
 * so that signing in again can answer the code step (see TestClient.login).
 */
const secrets = new Map<string, string>();
const recoveryCodesOf = new Map<string, string[]>();
const handedOut = new Map<string, Set<string>>();

export function rememberSecret(email: string, secret: string, recoveryCodes: string[] = []): void {
  secrets.set(email.trim().toLowerCase(), secret);
  recoveryCodesOf.set(email.trim().toLowerCase(), [...recoveryCodes]);
}

/**
 * What answers the code step for `email` now: a TOTP code not used yet, else one of its unused recovery
 * codes (each works once), else — only then — the next step's code after waiting for it. Tests sign an
 * administrator in many times a minute; a real one signs in with one code per 30 s.
 */
export async function secondFactor(email: string): Promise<{ code: string } | { recovery_code: string }> {
  const secret = secretOf(email);
  if (!secret) throw new Error(`no two-factor secret remembered for ${email}`);
  const code = unusedCode(secret);
  if (code) return { code };
  const recovery = recoveryCodesOf.get(email.trim().toLowerCase())?.shift();
  if (recovery) return { recovery_code: recovery };
  return { code: await freshCode(secret) };
}

function unusedCode(secret: string): string | undefined {
  const used = handedOut.get(secret) ?? new Set<string>();
  handedOut.set(secret, used);
  for (const step of [0, 1]) {
    const code = totp(secret, Date.now(), step);
    if (!used.has(code)) {
      used.add(code);
      return code;
    }
  }
  return undefined;
}

export function secretOf(email: string): string | undefined {
  return secrets.get(email.trim().toLowerCase());
}

/** RFC 4648 base32 (no padding), as otpauth:// URIs carry the secret. */
export function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of text.replace(/=+$/, '').toUpperCase()) {
    const index = alphabet.indexOf(char);
    if (index < 0) throw new Error(`not base32: ${char}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The 6-digit TOTP code of a base32 `secret` at `at` (ms), optionally `step`s of 30 s away. */
export function totp(secret: string, at = Date.now(), step = 0): string {
  const counter = Math.floor(at / 30_000) + step;
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const hmac = createHmac('sha1', base32Decode(secret)).update(message).digest();
  const offset = (hmac[hmac.length - 1] as number) & 0x0f;
  const binary = hmac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 1_000_000).padStart(6, '0');
}

/**
 * A sign-in code not handed out before for `secret`: a code signs in once (the server refuses it again
 * while valid), so a test signing in several times within 30 s gets the next step's code (the server
 * accepts one step either side), then waits for a new step.
 */
export async function freshCode(secret: string): Promise<string> {
  for (;;) {
    const code = unusedCode(secret);
    if (code) return code;
    await new Promise((resolve) => setTimeout(resolve, 30_000 - (Date.now() % 30_000) + 50));
  }
}

/** The secret of an `otpauth://totp/...?secret=...` URI. */
export function secretFromUri(uri: string): string {
  const secret = new URL(uri).searchParams.get('secret');
  if (!secret) throw new Error(`no secret in ${uri}`);
  return secret;
}

interface Requester {
  post(path: string, json?: unknown): Promise<Response>;
}

/**
 * Enrols the signed-in member of `client` (setup with the password, enable with a computed code) and
 * remembers the secret for `email`. Returns the secret and the ten recovery codes.
 */
export async function enrolTwoFactor(client: Requester, email: string, password: string) {
  const setup = await client.post('/api/me/two-factor/setup', { password });
  if (setup.status !== 200) throw new Error(`two-factor setup: ${setup.status} ${await setup.text()}`);
  const { totp_uri: uri, secret } = (await setup.json()) as { totp_uri: string; secret: string };
  if (secretFromUri(uri) !== secret) throw new Error('the secret differs from the otpauth:// URI');
  const enable = await client.post('/api/me/two-factor/enable', { code: totp(secret) });
  if (enable.status !== 200) throw new Error(`two-factor enable: ${enable.status} ${await enable.text()}`);
  const { recovery_codes: recoveryCodes } = (await enable.json()) as { recovery_codes: string[] };
  rememberSecret(email, secret, recoveryCodes);
  return { secret, recoveryCodes };
}
