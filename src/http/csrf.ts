import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { signedByAny } from '../lib/secrets.ts';
import { AppError } from './errors.ts';

const CSRF_COOKIE = 'XSRF-TOKEN';
const CSRF_HEADER = 'x-xsrf-token';
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Signed double-submit cookie, as the seed's SPA expects (Laravel-style XSRF-TOKEN / X-XSRF-TOKEN),
 * bound to the session: the token is `nonce.HMAC(secret, session, nonce)`, where `session` is a hash
 * of the session cookie (empty when signed out). A cookie planted by a sibling host, or a pair minted
 * in another browser, does not pass. Whenever an answer sets or clears the session cookie (sign-in,
 * sign-out), a new token for the new session goes with it.
 */
export function csrf(secret: string, options: { secure: boolean; exempt: (path: string) => boolean; sessionCookie: string }) {
  const bindingOf = (sessionValue: string | undefined) =>
    sessionValue ? createHash('sha256').update(sessionValue).digest('base64url') : '';
  const signWith = (key: string, binding: string, nonce: string) =>
    createHmac('sha256', key).update(`csrf:${binding}:${nonce}`).digest('base64url');
  const sign = (binding: string, nonce: string) => signWith(secret, binding, nonce);
  // A token made under a previous secret (AUTH_PREVIOUS_SECRETS) still passes.
  const isGenuine = (token: string, binding: string) => {
    const [nonce, mac] = token.split('.');
    if (!nonce || !mac) return false;
    return signedByAny(secret, nonce, Buffer.from(mac), (key, n) => Buffer.from(signWith(key, binding, n)));
  };
  const setToken = (c: Context, binding: string) => {
    const nonce = randomBytes(24).toString('base64url');
    setCookie(c, CSRF_COOKIE, `${nonce}.${sign(binding, nonce)}`, {
      path: '/',
      sameSite: 'Lax',
      secure: options.secure,
      httpOnly: false, // the SPA must read it to echo it
      maxAge: 12 * 3600,
    });
  };
  /** The session cookie an answer sets (its new value, '' when it clears it), or undefined when it leaves it alone. */
  const sessionSetBy = (res: Response): string | undefined => {
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq < 0 || pair.slice(0, eq).trim() !== options.sessionCookie) continue;
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
      return expired ? '' : safeDecode(pair.slice(eq + 1).trim());
    }
    return undefined;
  };

  const issue: MiddlewareHandler = async (c) => {
    setToken(c, bindingOf(getCookie(c, options.sessionCookie)));
    return c.body(null, 204);
  };

  const verify: MiddlewareHandler = async (c, next) => {
    if (!SAFE.has(c.req.method) && !options.exempt(c.req.path)) {
      const cookie = getCookie(c, CSRF_COOKIE);
      const header = c.req.header(CSRF_HEADER);
      if (!cookie || !header) throw new AppError('csrf');
      const a = Buffer.from(cookie);
      const b = Buffer.from(safeDecode(header));
      const binding = bindingOf(getCookie(c, options.sessionCookie));
      if (a.length !== b.length || !timingSafeEqual(a, b) || !isGenuine(cookie, binding)) throw new AppError('csrf');
    }
    await next();
    // Only unsafe requests sign in or out (sign-in, two-factor, passkeys, sign-out, password changes):
    // a GET's answer is not opened, which would turn its light headers into undici Headers.
    if (SAFE.has(c.req.method)) return;
    const session = sessionSetBy(c.res);
    if (session !== undefined) setToken(c, bindingOf(session || undefined));
  };

  return { issue, verify };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
