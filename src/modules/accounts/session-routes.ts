import type { Context } from 'hono';
import { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { clientIp } from '../../http/client-ip.ts';
import type { AppEnv } from '../../http/context.ts';
import { requireUser, signedInUser } from '../../http/guards.ts';
import { auditSignIn, type SignInMethod } from './admin-sign-ins.ts';
import { deviceCookie, deviceCookieName, noteSignIn, readDeviceId } from './devices.ts';
import { meDocs } from './docs.ts';
import { endOtherSessions, endSession, listSessions } from './sessions.ts';

/**
 * After any successful sign-in (the password, or a second step): the session notes the client's
 * address as the throttles see it, and a browser new to the account is remembered (its device cookie
 * set on `res`) and its owner mailed; an administrator's sign-in is audited.
 */
export async function recordSignIn(
  c: Context<AppEnv>,
  res: Response,
  signIn: { userId: string; sessionToken: string; method: SignInMethod },
) {
  const { env, authSecret, orm } = c.var.deps;
  const secure = env.isProduction;
  const { deviceId } = await noteSignIn(orm, {
    ...signIn,
    ip: clientIp(c, env.trustProxyHeader),
    userAgent: c.req.header('user-agent')?.slice(0, 500) ?? null,
    deviceId: readDeviceId(authSecret, getCookie(c, deviceCookieName(secure))),
  });
  await auditSignIn(c, signIn.userId, signIn.method);
  // Refreshed at each sign-in, so a browser in use keeps its id for good.
  res.headers.append('Set-Cookie', deviceCookie(authSecret, deviceId, secure));
}

/** Session ids are lower-case uuids (auth.ts), like the other records that are not users. */
const SESSION = ':id{[0-9a-f-]+}';

/** Where the member is signed in, and ending those sessions (docs/decisions/0028-session-lifetime.md). */
export const sessionRoutes = new Hono<AppEnv>()
  .get('/me/sessions', meDocs.sessions, requireUser, async (c) => {
    const me = signedInUser(c);
    return c.json({ sessions: await listSessions(c.var.deps.orm, me.id, me.sessionToken) });
  })
  .delete(`/me/sessions/${SESSION}`, meDocs.endSession, requireUser, async (c) => {
    const me = signedInUser(c);
    const { current } = await endSession(c.var.deps.orm, me.id, c.req.param('id'), me.sessionToken);
    const res = c.json({
      message: current ? 'この端末からログアウトしました。' : '選択した端末をログアウトさせました。',
      current,
    });
    if (current) {
      // This browser's own session: its cookie goes too (and with it its CSRF token).
      try {
        const { headers } = await c.var.deps.auth.api.signOut({ headers: c.req.raw.headers, returnHeaders: true });
        for (const cookie of headers.getSetCookie()) res.headers.append('Set-Cookie', cookie);
      } catch {
        // The session is gone either way.
      }
    }
    return res;
  })
  .delete('/me/sessions', meDocs.endOtherSessions, requireUser, async (c) => {
    const me = signedInUser(c);
    const ended = await endOtherSessions(c.var.deps.orm, me.id, me.sessionToken);
    return c.json({
      message: ended ? `ほかの端末（${ended}件）をログアウトさせました。` : 'ほかにログイン中の端末はありません。',
      ended,
    });
  });
