import { sql } from 'kysely';
import { ChangeCache, type ChangeFeed } from '../../db/changes.ts';
import { now as dbNow, db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { isStaffRole } from '../../http/access.ts';
import type { SessionUser } from '../../http/context.ts';
import { signedByAny } from '../../lib/secrets.ts';
import { type Auth, SESSION_SECONDS } from './auth.ts';

/** docs/decisions/0028-session-lifetime.md; renewal never passes the end. */
/** The longest a staff session lives. */
export const STAFF_SESSION_SECONDS = 12 * 3600;

const SESSION_LIFETIME = {
  memberAbsoluteSeconds: 30 * 24 * 3600,
  adminAbsoluteSeconds: STAFF_SESSION_SECONDS,
  adminIdleSeconds: 30 * 60,
} as const;
/** Each write is a change notice. */
const ACTIVITY_WRITE_SECONDS = 60;

export function sessionEndsAt(session: {
  role: string | null;
  created_at: Date | string;
  expires_at: Date | string;
  last_active_at: Date | string | null;
}): number {
  const admin = isStaffRole(session.role ?? '');
  const created = new Date(session.created_at).getTime();
  const absolute = created + (admin ? SESSION_LIFETIME.adminAbsoluteSeconds : SESSION_LIFETIME.memberAbsoluteSeconds) * 1000;
  let end = Math.min(new Date(session.expires_at).getTime(), absolute);
  if (admin) {
    const lastActive = new Date(session.last_active_at ?? session.created_at).getTime();
    end = Math.min(end, lastActive + SESSION_LIFETIME.adminIdleSeconds * 1000);
  }
  return end;
}

const sessionQuery = (em: Em, token: string) =>
  kysely(em)
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select([
      's.token',
      's.expires_at',
      's.created_at',
      's.last_active_at',
      'u.id',
      'u.email',
      'u.role',
      'u.email_verified',
      'u.last_name',
      'u.first_name',
      'u.banned',
      'u.ban_expires',
      'u.two_factor_enabled',
    ])
    .where('s.token', '=', token);

interface SessionRow {
  token: string;
  expires_at: Date | string;
  created_at: Date | string;
  last_active_at: Date | string | null;
  id: string;
  email: string;
  role: string | null;
  email_verified: boolean;
  last_name: string;
  first_name: string;
  banned: boolean | null;
  ban_expires: Date | string | null;
  two_factor_enabled: boolean | null;
}

function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function signedCookieValue(headers: Headers, name: string, secret: string): string | undefined {
  const raw = cookieValue(headers.get('cookie'), name);
  return raw ? verifiedToken(raw, secret) : undefined;
}

/** The value of a cookie signed as better-auth signs (`value.signature`, URI-encoded), or undefined. */
function verifiedToken(raw: string, secret: string): string | undefined {
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  const dot = value.lastIndexOf('.');
  if (dot < 1) return undefined;
  const token = value.slice(0, dot);
  return signedByAny(secret, token, Buffer.from(value.slice(dot + 1), 'base64')) ? token : undefined;
}

/** better-auth's getSession without its per-call machinery (docs/decisions/0013), cached while the change feed is live. */
export function createSessionReader(orm: Orm, auth: Auth, secret: string, changes?: ChangeFeed) {
  let cookieName: string | undefined;
  const cache = new ChangeCache<SessionRow | undefined>(changes, { max: 20_000, ttlMs: 5 * 60_000 });
  const forget = (userId: string | undefined) => cache.clear(userId ? (row) => row?.id === userId : undefined);
  changes?.on('users', forget);
  changes?.on('sessions', forget);
  return async (headers: Headers): Promise<SessionUser | null> => {
    cookieName ??= (await auth.$context).authCookies.sessionToken.name;
    const raw = cookieValue(headers.get('cookie'), cookieName);
    if (!raw) return null;
    // Keyed by the signed cookie as sent: a value verified once is not verified again while cached.
    let row = cache.peek(raw);
    if (!row) {
      const token = verifiedToken(raw, secret);
      if (!token) return null;
      row = await cache.get(raw, () => sessionQuery(orm.em.fork() as Em, token).executeTakeFirst());
    }
    const now = Date.now();
    if (!row) return null;
    if (sessionEndsAt(row) <= now) {
      // Past its absolute or idle end: gone for good (its owner's sessions list no longer shows it).
      await kysely(orm.em.fork() as Em)
        .deleteFrom('sessions')
        .where('token', '=', row.token)
        .execute();
      return null;
    }
    if (row.banned && (!row.ban_expires || new Date(row.ban_expires).getTime() > now)) return null;
    const lastActive = new Date(row.last_active_at ?? row.created_at).getTime();
    if (now - lastActive >= ACTIVITY_WRITE_SECONDS * 1000) {
      // Renewed as getSession would, but never past the absolute end.
      const absolute = isStaffRole(row.role ?? '')
        ? SESSION_LIFETIME.adminAbsoluteSeconds
        : SESSION_LIFETIME.memberAbsoluteSeconds;
      await kysely(orm.em.fork() as Em)
        .updateTable('sessions')
        .set((eb) => ({
          last_active_at: dbNow(),
          updated_at: dbNow(),
          expires_at: sql<string>`least(now() + make_interval(secs => ${SESSION_SECONDS}), ${eb.ref('created_at')} + make_interval(secs => ${absolute}))`,
        }))
        .where('token', '=', row.token)
        .execute();
    }
    return {
      id: row.id,
      email: row.email,
      role: row.role ?? 'user',
      emailVerified: Boolean(row.email_verified),
      lastName: row.last_name ?? '',
      firstName: row.first_name ?? '',
      sessionToken: row.token,
      twoFactorEnabled: Boolean(row.two_factor_enabled),
    };
  };
}
