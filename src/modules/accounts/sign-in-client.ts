import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { clientIp } from '../../http/client-ip.ts';
import type { AppEnv } from '../../http/context.ts';
import { currentUser } from '../../http/guards.ts';
import { deviceCookieName } from './devices.ts';

/** The calling browser as signing in sees it: what a route reads from the request for sign-in.ts. */
export interface SignInClient {
  /** The request's headers: better-auth reads its cookies (a pending second step, a trusted device). */
  headers: Headers;
  /** The client's address as the throttles see it. */
  ip: string;
  userAgent: string | null;
  /** The device cookie as sent (devices.ts checks its signature). */
  deviceCookie: string | undefined;
  /** Whoever is signed in on the calling browser (the actor of a failed administrator sign-in). */
  caller: () => Promise<{ id: string; email: string } | null>;
}

export function signInClient(c: Context<AppEnv>): SignInClient {
  const { env } = c.var.deps;
  return {
    headers: c.req.raw.headers,
    ip: clientIp(c, env.trustProxyHeader),
    userAgent: c.req.header('user-agent')?.slice(0, 500) ?? null,
    deviceCookie: getCookie(c, deviceCookieName(env.isProduction)),
    caller: async () => {
      const user = await currentUser(c);
      return user ? { id: user.id, email: user.email } : null;
    },
  };
}

/** Sets the cookies a sign-in outcome carries on the route's answer. */
export function withCookies(res: Response, cookies: readonly string[]): Response {
  for (const cookie of cookies) res.headers.append('Set-Cookie', cookie);
  return res;
}
