import { createHmac, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { countAll, db as kysely, millisecondsAgo, now } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { signedByAny } from '../../lib/secrets.ts';

/** The cookie names the browser, not the member, and survives sign-outs. */
const DEVICE_COOKIE = 'shop_device';
/** Chrome's cap. */
const DEVICE_COOKIE_SECONDS = 400 * 24 * 3600;

const sign = (secret: string, id: string) => createHmac('sha256', secret).update(`device:${id}`).digest('base64url');

export function readDeviceId(secret: string, value: string | undefined): string | null {
  if (!value) return null;
  const [id, signature] = value.split('.');
  if (!id || !signature || !/^[A-Za-z0-9_-]{16,64}$/.test(id)) return null;
  return signedByAny(secret, id, Buffer.from(signature), (s, d) => Buffer.from(sign(s, d))) ? id : null;
}

export function deviceCookie(secret: string, id: string, secure: boolean): string {
  return [
    `${secure ? '__Host-' : ''}${DEVICE_COOKIE}=${id}.${sign(secret, id)}`,
    'Path=/',
    `Max-Age=${DEVICE_COOKIE_SECONDS}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

export const deviceCookieName = (secure: boolean) => `${secure ? '__Host-' : ''}${DEVICE_COOKIE}`;

export interface SignIn {
  userId: string;
  sessionToken: string;
  ip: string;
  userAgent: string | null;
  deviceId: string | null;
}

const NEW_ACCOUNT_HOURS = 24;

/** A new account's first browser is its owner signing in after registering, not news to them. */
async function isNewAccountsFirstBrowser(tx: Em, userId: string): Promise<boolean> {
  const row = await kysely(tx)
    .selectNoFrom((eb) =>
      eb
        .and([
          eb(
            eb
              .selectFrom('known_devices')
              .select((c) => countAll(c).as('n'))
              .where('user_id', '=', userId),
            '=',
            1,
          ),
          eb(
            eb.selectFrom('users').select('created_at').where('id', '=', userId),
            '>',
            millisecondsAgo(NEW_ACCOUNT_HOURS * 3600 * 1000),
          ),
        ])
        .as('first'),
    )
    .executeTakeFirst();
  return Boolean(row?.first);
}

/** The session records the address the throttles see (better-auth would take any X-Forwarded-For). */
export async function noteSignIn(orm: Orm, signIn: SignIn): Promise<{ deviceId: string; isNew: boolean }> {
  const deviceId = signIn.deviceId ?? randomBytes(18).toString('base64url');
  return transact(orm.em as Em, async (tx) => {
    const db = kysely(tx);
    await db
      .updateTable('sessions')
      .set({ ip_address: signIn.ip, user_agent: signIn.userAgent, last_active_at: now() })
      .where('token', '=', signIn.sessionToken)
      .execute();
    // The administrators' 最終ログイン (not updated_at: that is the version an edit carries).
    await db.updateTable('users').set({ last_sign_in_at: now() }).where('id', '=', signIn.userId).execute();
    // xmax = 0: the row was inserted, not updated (a device the account had seen).
    const row = await db
      .insertInto('known_devices')
      .values({ user_id: signIn.userId, device_id: deviceId, user_agent: signIn.userAgent })
      .onConflict((oc) =>
        oc
          .columns(['user_id', 'device_id'])
          .doUpdateSet((eb) => ({ last_seen_at: now(), user_agent: eb.ref('excluded.user_agent') })),
      )
      .returning(sql<boolean>`xmax = 0`.as('inserted'))
      .executeTakeFirst();
    const isNew = Boolean(row?.inserted);
    if (isNew && !(await isNewAccountsFirstBrowser(tx, signIn.userId))) {
      recordEvent(tx, 'NewDeviceSignIn', {
        userId: signIn.userId,
        at: new Date().toISOString(),
        ip: signIn.ip,
        userAgent: (signIn.userAgent ?? '').slice(0, 500),
      });
    }
    return { deviceId, isNew };
  });
}
