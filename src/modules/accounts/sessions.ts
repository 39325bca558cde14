import { now as dbNow, db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { AppError } from '../../http/errors.ts';
import { sessionEndsAt } from './session.ts';
import { describeUserAgent } from './user-agent.ts';

interface SessionListRow {
  id: string;
  token: string;
  role: string | null;
  created_at: Date | string;
  expires_at: Date | string;
  last_active_at: Date | string | null;
  ip_address: string | null;
  user_agent: string | null;
}

const iso = (value: Date | string) => new Date(value).toISOString();

/**
 * Where a member is signed in: their live sessions (ended ones — expired, past their absolute end, an
 * administrator's left idle — are not shown), the one making the call marked `current`, most recently
 * used first. `device` is the user agent as the account page shows it (「Chrome（Windows）」).
 */
export async function listSessions(orm: Orm, userId: string, currentToken: string) {
  const em = orm.em.fork() as Em;
  const rows: SessionListRow[] = await kysely(em)
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.id', 's.token', 'u.role', 's.created_at', 's.expires_at', 's.last_active_at', 's.ip_address', 's.user_agent'])
    .where('s.user_id', '=', userId)
    .where('s.expires_at', '>', dbNow())
    .orderBy((eb) => eb.fn.coalesce('s.last_active_at', 's.created_at'), 'desc')
    .orderBy('s.id')
    .execute();
  const now = Date.now();
  return rows
    .filter((row) => sessionEndsAt(row) > now)
    .map((row) => ({
      id: row.id,
      current: row.token === currentToken,
      created_at: iso(row.created_at),
      last_active_at: iso(row.last_active_at ?? row.created_at),
      ip: row.ip_address,
      user_agent: row.user_agent,
      device: describeUserAgent(row.user_agent),
    }));
}

const SESSION_NOT_FOUND = 'このログイン中の端末は見つかりませんでした。すでにログアウトしている可能性があります。';

/**
 * Ends one of the member's own sessions (another member's id is 404, as is one already ended). The
 * deletion's change notice drops it from every web process's cache at once (docs/decisions/0021).
 */
export async function endSession(
  orm: Orm,
  userId: string,
  sessionId: string,
  currentToken: string,
): Promise<{ current: boolean }> {
  const em = orm.em.fork() as Em;
  const ended = await kysely(em)
    .deleteFrom('sessions')
    .where('id', '=', sessionId)
    .where('user_id', '=', userId)
    .returning('token')
    .execute();
  if (ended.length === 0) throw new AppError('not_found', SESSION_NOT_FOUND);
  return { current: ended[0]?.token === currentToken };
}

/** Ends every session of the member but the one making the call; how many ended. */
export async function endOtherSessions(orm: Orm, userId: string, currentToken: string): Promise<number> {
  const em = orm.em.fork() as Em;
  const ended = await kysely(em)
    .deleteFrom('sessions')
    .where('user_id', '=', userId)
    .where('token', '<>', currentToken)
    .returning('id')
    .execute();
  return ended.length;
}
