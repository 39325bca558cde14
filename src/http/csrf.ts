import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { AppError } from './errors.ts';

export const CSRF_COOKIE = 'XSRF-TOKEN';
export const CSRF_HEADER = 'x-xsrf-token';
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Signed double-submit cookie, as the seed's SPA expects (Laravel-style XSRF-TOKEN / X-XSRF-TOKEN).
 * The token is random + HMAC(secret), so a cookie planted by a sibling host cannot pass.
 */
export function csrf(secret: string, options: { secure: boolean; exempt: (path: string) => boolean }) {
  const sign = (nonce: string) => createHmac('sha256', secret).update(`csrf:${nonce}`).digest('base64url');
  const isGenuine = (token: string) => {
    const [nonce, mac] = token.split('.');
    if (!nonce || !mac) return false;
    const expected = Buffer.from(sign(nonce));
    const given = Buffer.from(mac);
    return expected.length === given.length && timingSafeEqual(expected, given);
  };

  const issue: MiddlewareHandler = async (c) => {
    const nonce = randomBytes(24).toString('base64url');
    setCookie(c, CSRF_COOKIE, `${nonce}.${sign(nonce)}`, {
      path: '/',
      sameSite: 'Lax',
      secure: options.secure,
      httpOnly: false, // the SPA must read it to echo it
      maxAge: 12 * 3600,
    });
    return c.body(null, 204);
  };

  const verify: MiddlewareHandler = async (c, next) => {
    if (SAFE.has(c.req.method) || options.exempt(c.req.path)) return next();
    const cookie = getCookie(c, CSRF_COOKIE);
    const header = c.req.header(CSRF_HEADER);
    if (!cookie || !header) throw new AppError('csrf');
    const a = Buffer.from(cookie);
    const b = Buffer.from(safeDecode(header));
    if (a.length !== b.length || !timingSafeEqual(a, b) || !isGenuine(cookie)) throw new AppError('csrf');
    return next();
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
