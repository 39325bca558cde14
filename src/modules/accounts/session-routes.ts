import { Hono } from 'hono';
import type { AppEnv } from '../../http/context.ts';
import { requireUser, signedInUser } from '../../http/guards.ts';
import { meDocs } from './docs.ts';
import { endOtherSessions, endSession, listSessions } from './sessions.ts';

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
