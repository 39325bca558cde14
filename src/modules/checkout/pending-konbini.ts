import { Hono } from 'hono';
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import { type DB, db as kysely, now } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import type { AppEnv } from '../../http/context.ts';
import { permit } from '../../http/guards.ts';
import { queryInput } from '../../http/validate.ts';
import { currentBuyers } from '../accounts/index.ts';
import { licenseNames } from '../licenses/index.ts';

/** Konbini payments and bank transfers: お支払い待ち (the deadline not passed) or lapsed (passed unpaid: Stripe's async_payment_failed, or not yet told). */
export type KonbiniListState = 'awaiting' | 'lapsed';

type Checkouts = ExpressionBuilder<DB, 'checkout_sessions'>;

/** A konbini voucher's deadline or a bank transfer's: the list holds both kinds of payment awaited. */
const deadline = (eb: Checkouts) => eb.fn.coalesce('konbini_expires_at', 'bank_transfer_expires_at');
const PENDING_KIND = (eb: Checkouts) =>
  eb.or([eb('konbini_expires_at', 'is not', null), eb('bank_transfer_expires_at', 'is not', null)]);

const WHERE: Record<KonbiniListState, (eb: Checkouts) => Expression<SqlBool>> = {
  awaiting: (eb) => eb.and([eb('state', '=', 'awaiting_payment'), eb(deadline(eb), '>', now())]),
  lapsed: (eb) =>
    eb.and([
      PENDING_KIND(eb),
      eb.or([eb('state', '=', 'payment_failed'), eb.and([eb('state', '=', 'awaiting_payment'), eb(deadline(eb), '<=', now())])]),
    ]),
};
// Awaiting: the nearest deadline first (whom to expect today); lapsed: the latest first.
const ORDER: Record<KonbiniListState, 'asc' | 'desc'> = { awaiting: 'asc', lapsed: 'desc' };

/**
 * The administrators' list of konbini payments awaited or lapsed, paged, with the member as they are
 * now (accounts) and the licence's name (licences); both totals for the screen's tabs.
 */
export async function pendingKonbini(orm: Orm, state: KonbiniListState, page: number, perPage: number) {
  const em = orm.em.fork() as Em;
  const [rows, counts] = await Promise.all([
    kysely(em)
      .selectFrom('checkout_sessions')
      .select(['id', 'order_number', 'user_id', 'license_id', 'amount', 'currency', 'state', 'created_at', 'updated_at'])
      .select((eb) => [deadline(eb).as('expires_at'), 'bank_transfer_expires_at'])
      .where(WHERE[state])
      .orderBy('expires_at', ORDER[state])
      .orderBy('id', ORDER[state])
      .limit(perPage)
      .offset((page - 1) * perPage)
      .$narrowType<{ expires_at: string }>()
      .execute(),
    kysely(em)
      .selectFrom('checkout_sessions')
      .select((eb) => [
        eb.cast<number>(eb.fn.countAll().filterWhere(WHERE.awaiting), 'integer').as('awaiting'),
        eb.cast<number>(eb.fn.countAll().filterWhere(WHERE.lapsed), 'integer').as('lapsed'),
      ])
      .where(PENDING_KIND)
      .execute(),
  ]);
  const [buyers, names] = await Promise.all([
    currentBuyers(em, [...new Set(rows.flatMap((row) => (row.user_id ? [row.user_id] : [])))]),
    licenseNames(em, [...new Set(rows.map((row) => row.license_id))]),
  ]);
  const totals = { awaiting: counts[0]?.awaiting ?? 0, lapsed: counts[0]?.lapsed ?? 0 };
  return {
    konbini_payments: rows.map((row) => {
      const buyer = row.user_id ? buyers.get(row.user_id) : undefined;
      const lapsed = state === 'lapsed';
      return {
        checkout_id: row.id,
        order_number: row.order_number,
        payment_method: row.bank_transfer_expires_at ? ('bank_transfer' as const) : ('konbini' as const),
        payment_method_label: row.bank_transfer_expires_at ? '銀行振込' : 'コンビニ払い',
        state: lapsed ? ('lapsed' as const) : ('awaiting' as const),
        state_label: lapsed ? '期限切れ' : 'お支払い待ち',
        amount: row.amount,
        currency: row.currency,
        ordered_at: new Date(row.created_at).toISOString(),
        expires_at: new Date(row.expires_at).toISOString(),
        // When it lapsed: Stripe's async_payment_failed (recorded on the checkout), or the deadline when
        // Stripe has not said so yet.
        lapsed_at: lapsed ? new Date(row.state === 'payment_failed' ? row.updated_at : row.expires_at).toISOString() : null,
        license_id: row.license_id,
        license_name: names.get(row.license_id) ?? '',
        user_id: row.user_id,
        user: buyer ? { last_name: buyer.lastName, first_name: buyer.firstName, email: buyer.email } : null,
      };
    }),
    state,
    total: state === 'awaiting' ? totals.awaiting : totals.lapsed,
    totals,
    page,
    per_page: perPage,
  };
}

import { paymentDocs } from './responses.ts';
import { PendingQuery } from './schemas.ts';

/** GET /api/payments/pending-konbini?state=awaiting|lapsed (administrators). */
export const pendingKonbiniRoutes = new Hono<AppEnv>().get(
  '/payments/pending-konbini',
  paymentDocs.pendingKonbini,
  permit('payments:read'),
  async (c) => {
    const query = queryInput(c, PendingQuery);
    return c.json(await pendingKonbini(c.var.deps.orm, query.state, query.page, query.per_page));
  },
);
