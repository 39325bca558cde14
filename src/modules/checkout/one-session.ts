// One payable Stripe session per member and licence (issue 34 review, decision 0047): a new checkout
// replaces the member's open one, which is expired at Stripe before the new session exists.
import { sql } from 'kysely';
import type Stripe from 'stripe';
import { db as kysely, now } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import { AppError } from '../../http/errors.ts';

/** A checkout of the member's that a newer one replaces, and its Stripe session if it has one yet. */
export interface Superseded {
  id: string;
  stripeSessionId: string | null;
}

const UNAVAILABLE = '決済ページを準備できませんでした。時間をおいて再度お試しください。';
const PAID_ELSEWHERE = 'このライセンスは別の画面でお支払いが済んでいます。購入履歴をご確認ください。';
const PENDING_ELSEWHERE =
  'このライセンスは別の画面でお申し込みが済み、お支払いをお待ちしています。購入履歴からご注文の内容をご確認ください。';
const REPLACED = '別の画面で新しいお手続きが始まったため、こちらのお手続きは取り消しました。新しい画面からお進みください。';

/** Serialises everything one member does with one licence: starting a checkout, and a payment of it arriving. */
export async function lockMemberLicense(tx: Em, userId: string, licenseId: number): Promise<void> {
  // SQL as text: an advisory lock.
  await sql`select pg_advisory_xact_lock(hashtext(${`checkout:${userId}:${licenseId}`}))`.execute(kysely(tx));
}

/**
 * In the transaction that opens the new checkout, under lockMemberLicense: the member's open checkouts
 * of the licence stop holding a seat (`superseded`) until Stripe confirms their expiry.
 */
export async function supersedeOpenCheckouts(tx: Em, userId: string, licenseId: number): Promise<Superseded[]> {
  const rows = await kysely(tx)
    .updateTable('checkout_sessions')
    .set({ state: 'superseded', updated_at: now() })
    .where('user_id', '=', userId)
    .where('license_id', '=', licenseId)
    .where('state', '=', 'open')
    .returning(['id', 'stripe_session_id'])
    .execute();
  return rows.map((row) => ({ id: row.id, stripeSessionId: row.stripe_session_id }));
}

type StripeEnd = 'expired' | 'paid' | 'unpaid' | 'unknown';

/** Expires a session at Stripe; one no longer open says how it ended. */
async function expireAtStripe(stripe: Stripe, sessionId: string): Promise<StripeEnd> {
  try {
    await stripe.checkout.sessions.expire(sessionId);
    return 'expired';
  } catch (error) {
    if ((error as { type?: string }).type !== 'StripeInvalidRequestError') return 'unknown';
  }
  try {
    const session = await stripe.checkout.sessions.retrieve(sessionId);
    if (session.status === 'expired') return 'expired';
    if (session.status === 'complete') return session.payment_status === 'unpaid' ? 'unpaid' : 'paid';
  } catch {
    // Not known: the caller keeps the old session and gives up the new one.
  }
  return 'unknown';
}

const markExpired = (em: Em, id: string) =>
  kysely(em)
    .updateTable('checkout_sessions')
    .set({ state: 'expired', updated_at: now() })
    .where('id', '=', id)
    .where('state', '=', 'superseded')
    .execute();

/**
 * After the commit, before the new session is created: each replaced session is expired at Stripe.
 * One completed meanwhile wins — it is open again to its own webhook and the member is told — and one
 * Stripe cannot confirm is kept; either way the new checkout goes no further (the caller fails it).
 */
export async function expireSuperseded(em: Em, stripe: Stripe, previous: Superseded[]): Promise<void> {
  for (const row of previous) {
    // Still being created by its own request: that request expires it (keepSession).
    if (!row.stripeSessionId) continue;
    const end = await expireAtStripe(stripe, row.stripeSessionId);
    if (end === 'expired') {
      await markExpired(em, row.id);
      continue;
    }
    await kysely(em)
      .updateTable('checkout_sessions')
      .set({ state: 'open', updated_at: now() })
      .where('id', '=', row.id)
      .where('state', '=', 'superseded')
      .execute();
    if (end === 'paid') throw new AppError('conflict', PAID_ELSEWHERE, { details: { code: 'already_purchased' } });
    if (end === 'unpaid') throw new AppError('conflict', PENDING_ELSEWHERE, { details: { code: 'payment_pending' } });
    throw new AppError('unavailable', UNAVAILABLE);
  }
}

/**
 * The new session's id kept on its checkout, unless a newer checkout of the member's replaced it while
 * the session was being created: then its address is never answered and the session is expired.
 */
export async function keepSession(em: Em, stripe: Stripe, checkoutId: string, sessionId: string): Promise<void> {
  const kept = await kysely(em)
    .updateTable('checkout_sessions')
    .set({ stripe_session_id: sessionId, updated_at: now() })
    .where('id', '=', checkoutId)
    .where('state', '=', 'open')
    .returning('id')
    .executeTakeFirst();
  if (kept) return;
  await kysely(em).updateTable('checkout_sessions').set({ stripe_session_id: sessionId }).where('id', '=', checkoutId).execute();
  if ((await expireAtStripe(stripe, sessionId)) === 'expired') await markExpired(em, checkoutId);
  throw new AppError('conflict', REPLACED, { details: { code: 'superseded' } });
}
