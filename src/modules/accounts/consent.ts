import { randomBytes, randomUUID } from 'node:crypto';
import { countAll, now as dbNow, db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { transact } from '../../events/outbox.ts';
import { ConsentChange, type ConsentSource } from './entities/consent.entity.ts';

/** Written in the transaction that changes `distribution` (docs/decisions/0048-announcements-and-consent.md). */
export function recordConsent(tx: Em, userId: string, distribution: boolean, source: ConsentSource): void {
  tx.create(ConsentChange, { id: randomUUID(), userId, distribution, source, createdAt: new Date() });
}

/** Sets the member's choice when it differs, with its consent record, in the caller's transaction. */
export async function setDistribution(tx: Em, userId: string, distribution: boolean, source: ConsentSource = 'purchase') {
  const changed = await kysely(tx)
    .updateTable('users')
    .set({ distribution, updated_at: dbNow() })
    .where('id', '=', userId)
    .where('distribution', '<>', distribution)
    .returning('id')
    .executeTakeFirst();
  if (changed) recordConsent(tx, userId, distribution, source);
}

/** A member's consent history, oldest first. */
export function consentHistory(em: Em, userId: string) {
  return kysely(em)
    .selectFrom('consent_changes')
    .select(['distribution', 'source', 'created_at'])
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const isUnsubscribeToken = (token: string) => TOKEN.test(token);

/** The member behind an unsubscribe link, and whether they still receive announcements; null for an unknown token. */
export async function unsubscribeTarget(em: Em, token: string): Promise<{ userId: string; distribution: boolean } | null> {
  if (!isUnsubscribeToken(token)) return null;
  const row = await kysely(em)
    .selectFrom('unsubscribe_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['u.id', 'u.distribution'])
    .where('t.token', '=', token)
    .executeTakeFirst();
  return row ? { userId: row.id, distribution: row.distribution } : null;
}

/** The unsubscribe link's POST: announcements stop at once; a second click changes nothing. */
export async function unsubscribe(orm: Orm, token: string): Promise<'unsubscribed' | 'already' | 'unknown'> {
  return transact(orm.em as Em, async (tx) => {
    const target = await unsubscribeTarget(tx, token);
    if (!target) return 'unknown';
    if (!target.distribution) return 'already';
    await setDistribution(tx, target.userId, false, 'unsubscribe');
    return 'unsubscribed';
  });
}

/** Gives each of `userIds` an unsubscribe token unless they have one (random, 256 bits). */
async function ensureTokens(em: Em, userIds: readonly string[]): Promise<void> {
  if (!userIds.length) return;
  await kysely(em)
    .insertInto('unsubscribe_tokens')
    .values(userIds.map((id) => ({ token: randomBytes(32).toString('base64url'), user_id: id })))
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute();
}

/**
 * Who an announcement goes to. `marketing`: asked for them, verified address, not banned. `legal_notice`
 * (利用規約第7条's notice, decision 0049): every member with a verified address, whatever their choice —
 * a suspended (banned) member is still bound by the terms. A withdrawn member no longer exists.
 */
type AudienceKind = 'marketing' | 'legal_notice';

export function announcementAudience(em: Em, announcementId: string, kind: AudienceKind = 'marketing') {
  return kysely(em)
    .selectFrom('users')
    .select((eb) => [eb.val(announcementId).as('announcement_id'), 'id as user_id'])
    .where('email_verified', '=', true)
    .$if(kind === 'marketing', (qb) =>
      qb.where('distribution', '=', true).where((eb) => eb.or([eb('banned', 'is', null), eb('banned', '=', false)])),
    );
}

/** How many members a legal notice would reach now (the screen says so before it is sent). */
export async function legalNoticeAudienceSize(em: Em): Promise<number> {
  const row = await kysely(em)
    .selectFrom('users')
    .select((eb) => countAll(eb).as('n'))
    .where('email_verified', '=', true)
    .executeTakeFirstOrThrow();
  return row.n;
}

/** Of `userIds`, those still in the audience now, with their current address and name (and, for marketing, unsubscribe token). */
export async function announcementRecipients(em: Em, userIds: readonly string[], kind: AudienceKind = 'marketing') {
  if (!userIds.length) return [];
  if (kind === 'legal_notice') {
    return kysely(em)
      .selectFrom('users as u')
      .select(['u.id', 'u.email', 'u.last_name', 'u.first_name', (eb) => eb.val<string | null>(null).as('token')])
      .where('u.id', 'in', [...userIds])
      .where('u.email_verified', '=', true)
      .execute();
  }
  await ensureTokens(em, userIds);
  return kysely(em)
    .selectFrom('users as u')
    .innerJoin('unsubscribe_tokens as t', 't.user_id', 'u.id')
    .select(['u.id', 'u.email', 'u.last_name', 'u.first_name', 't.token'])
    .where('u.id', 'in', [...userIds])
    .where('u.distribution', '=', true)
    .where('u.email_verified', '=', true)
    .where((eb) => eb.or([eb('u.banned', 'is', null), eb('u.banned', '=', false)]))
    .execute();
}

/** An administrator's own details for a test send, with a token of their own. */
export async function testRecipient(em: Em, userId: string) {
  await ensureTokens(em, [userId]);
  return kysely(em)
    .selectFrom('users as u')
    .innerJoin('unsubscribe_tokens as t', 't.user_id', 'u.id')
    .select(['u.id', 'u.email', 'u.last_name', 'u.first_name', 't.token'])
    .where('u.id', '=', userId)
    .executeTakeFirst();
}
