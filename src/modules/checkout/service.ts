import { randomUUID } from 'node:crypto';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { sql } from 'kysely';
import type Stripe from 'stripe';
import type { Env } from '../../config/env.ts';
import { jsonb, db as kysely, now } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { AppError, validationError } from '../../http/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import { setDistribution } from '../accounts/index.ts';
import { findLicenseForSale, LICENSE_NOT_FOUND, noteCheckoutStarted } from '../licenses/index.ts';
import { holdingsOf, saleOfCheckout } from '../sales/index.ts';
import { CheckoutSession, StripeEvent } from './entities/checkout-session.entity.ts';
import { HIDDEN_LICENSE_FLAG } from './hidden-license.ts';
import { type KonbiniVoucher, konbiniVoucherOf, voucherView } from './konbini.ts';

/**
 * Starts a purchase: a Checkout Session in JPY for the licence's price as stored (never the
 * client's), our ids in client_reference_id and metadata, an idempotency key, and our own record.
 */
export async function startCheckout(
  orm: Orm,
  env: Env,
  stripe: Stripe,
  buyer: { id: string; email: string },
  input: { licenseId: number; distribution: boolean },
): Promise<{ url: string }> {
  const em = orm.em.fork() as Em;
  const checkoutId = randomUUID();
  const license = await transact(em, async (tx) => {
    const license = await findLicenseForSale(tx, input.licenseId);
    if (!license) throw new AppError('not_found', LICENSE_NOT_FOUND);
    if (!license.published) throw validationError({ licenseId: ['このライセンスは現在販売していません。'] });
    await refuseSecondPurchase(tx, buyer.id, license.id);
    tx.create(CheckoutSession, {
      id: checkoutId,
      userId: buyer.id,
      licenseId: license.id,
      amount: license.price,
      currency: 'jpy',
      state: 'open',
      distribution: input.distribution,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    // The purchase screen's opt-in is the member's current choice.
    await setDistribution(tx, buyer.id, input.distribution);
    await noteCheckoutStarted(tx, license.id);
    return license;
  });
  let session: Stripe.Checkout.Session;
  try {
    session = await stripe.checkout.sessions.create(
      {
        mode: 'payment',
        line_items: [
          { quantity: 1, price_data: { currency: 'jpy', unit_amount: license.price, product_data: { name: license.name } } },
        ],
        client_reference_id: buyer.id,
        customer_email: buyer.email,
        metadata: { checkoutId, userId: buyer.id, licenseId: String(license.id) },
        locale: 'ja',
        success_url: `${env.appUrl}/licenses/${license.id}/complete?session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${env.appUrl}/licenses/${license.id}/procedure?canceled=1`,
      },
      { idempotencyKey: `checkout-${checkoutId}` },
    );
  } catch (error) {
    await kysely(em)
      .updateTable('checkout_sessions')
      .set({ state: 'failed', flag_reason: String(error) })
      .where('id', '=', checkoutId)
      .execute();
    throw new AppError('unavailable', '決済ページを準備できませんでした。時間をおいて再度お試しください。');
  }
  await kysely(em)
    .updateTable('checkout_sessions')
    .set({ stripe_session_id: session.id, updated_at: now() })
    .where('id', '=', checkoutId)
    .execute();
  if (!session.url) throw new AppError('unavailable', '決済ページを準備できませんでした。時間をおいて再度お試しください。');
  return { url: session.url };
}

export const ALREADY_PURCHASED = 'このライセンスは購入済みです。';
export const PAYMENT_PENDING =
  'このライセンスはコンビニでのお支払いをお待ちしています。お支払い番号（払込票）に沿って、期限までにお支払いください。';

/**
 * A member buys a licence once: 409 `already_purchased` when they hold it (a paid sale not refunded,
 * or a payment completed whose sale the worker is still recording), 409 `payment_pending` while a
 * konbini payment for it awaits them (with the voucher). Runs in startCheckout's transaction under a
 * lock on (member, licence), so two requests at once cannot both pass it.
 */
async function refuseSecondPurchase(tx: Em, userId: string, licenseId: number): Promise<void> {
  // SQL as text: an advisory lock (a function called for its effect), which no query builder says.
  await sql`select pg_advisory_xact_lock(hashtext(${`checkout:${userId}:${licenseId}`}))`.execute(kysely(tx));
  const [held] = await holdingsOf(tx, userId, licenseId);
  if (held) throw new AppError('conflict', ALREADY_PURCHASED, { details: { code: 'already_purchased' } });
  const pending = await tx.find(
    CheckoutSession,
    { userId, licenseId, state: { $in: ['complete', 'awaiting_payment'] } },
    { orderBy: { createdAt: 'desc' } },
  );
  for (const checkout of pending) {
    // Paid a moment ago: the sale is being recorded (a refunded one has its sale, counted above).
    if (checkout.state === 'complete' && !(await saleOfCheckout(tx, checkout.id))) {
      throw new AppError('conflict', ALREADY_PURCHASED, { details: { code: 'already_purchased' } });
    }
    // Awaiting the konbini payment (its voucher may still be on its way from Stripe) until the deadline.
    if (
      checkout.state === 'awaiting_payment' &&
      (checkout.konbiniExpiresAt?.getTime() ?? Number.POSITIVE_INFINITY) > Date.now()
    ) {
      const voucher = voucherView(checkout);
      throw new AppError('conflict', PAYMENT_PENDING, {
        details: {
          code: 'payment_pending',
          voucher_url: voucher?.url ?? null,
          expires_at: voucher?.expires_at ?? null,
          history_url: `/users/${userId}`,
        },
      });
    }
  }
}

const sessionIdOf = (event: Stripe.Event): string | null =>
  event.type.startsWith('checkout.session.') ? ((event.data.object as { id?: string }).id ?? null) : null;

/** Stores a verified Stripe event in the inbox once, with the event that queues its processing. */
export async function receiveStripeEvent(orm: Orm, event: Stripe.Event): Promise<'stored' | 'duplicate'> {
  try {
    return await transact(orm.em as Em, async (tx) => {
      const inserted = await kysely(tx)
        .insertInto('stripe_events')
        .values({
          id: event.id,
          type: event.type,
          payload: jsonb(event),
          stripe_session_id: sessionIdOf(event),
          received_at: now(),
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!inserted) return 'duplicate';
      recordEvent(tx, 'StripeEventReceived', { eventId: event.id });
      return 'stored';
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) return 'duplicate';
    throw error;
  }
}

/** The buyer's view of a checkout: the complete page polls it until the webhook made the sale. */
export async function checkoutStatus(orm: Orm, userId: string, stripeSessionId: string) {
  const em = orm.em.fork() as Em;
  const checkout = await em.findOne(CheckoutSession, { stripeSessionId, userId });
  if (!checkout) throw new AppError('not_found', 'お支払いの記録が見つかりませんでした。');
  const sale = await saleOfCheckout(em, checkout.id);
  return {
    state: checkout.state,
    license_id: checkout.licenseId,
    // What the member pays (総額表示: tax included), shown with a pending konbini payment's deadline.
    amount: checkout.amount,
    currency: checkout.currency,
    sale_id: sale?.id ?? null,
    order_number: sale?.orderNumber ?? null,
    // A konbini payment awaiting the buyer: the numbers, the voucher page and the deadline.
    konbini:
      checkout.state === 'awaiting_payment' && (checkout.konbiniExpiresAt?.getTime() ?? 0) > Date.now()
        ? voucherView(checkout)
        : null,
  };
}

type SessionObject = Stripe.Checkout.Session;

/** Retryable: the job runs again later (BullMQ back-off), after the payment has been reconciled. */
export class RefundBeforePayment extends Error {}

async function receiptUrlOf(stripe: Stripe, paymentIntentId: string | null, log: Logger): Promise<string | null> {
  if (!paymentIntentId) return null;
  try {
    const pi = await stripe.paymentIntents.retrieve(paymentIntentId, { expand: ['latest_charge'] });
    const charge = pi.latest_charge;
    return typeof charge === 'object' && charge ? (charge.receipt_url ?? null) : null;
  } catch (error) {
    log.warn('could not fetch the receipt URL', { paymentIntentId, error: String(error) });
    return null;
  }
}

const paymentIntentOf = (session: SessionObject) =>
  typeof session.payment_intent === 'string' ? session.payment_intent : (session.payment_intent?.id ?? null);

/**
 * A completed but unpaid session (konbini): the voucher Stripe issued, from the payment intent. A
 * failure to ask is thrown, so the event is retried rather than leaving the buyer without numbers.
 */
async function konbiniVoucherFor(stripe: Stripe, session: SessionObject): Promise<KonbiniVoucher | null> {
  const paymentIntentId = paymentIntentOf(session);
  if (!paymentIntentId) return null;
  return konbiniVoucherOf(await stripe.paymentIntents.retrieve(paymentIntentId));
}

/**
 * Turns one inbox event into state changes, idempotently and in any order: a paid session becomes
 * CheckoutPaid once (the sales module makes the sale), a delayed payment only when it succeeds,
 * a refund PaymentRefunded; a session whose amount or currency differs from ours is flagged.
 */
export async function reconcile(
  ctx: { em: Em; stripe: Stripe; log: Logger },
  eventId: string,
  options: { replay?: boolean } = {},
): Promise<'done' | 'skipped'> {
  const row = await ctx.em.findOne(StripeEvent, { id: eventId });
  if (!row || (row.processedAt && !options.replay)) return 'skipped';
  const event = row.payload as unknown as Stripe.Event;
  let session: SessionObject | null = null;
  let refundOf: string | null = null;

  if (event.type.startsWith('checkout.session.')) session = event.data.object as SessionObject;
  if (event.type === 'charge.refunded') {
    const charge = event.data.object as Stripe.Charge;
    refundOf = typeof charge.payment_intent === 'string' ? charge.payment_intent : (charge.payment_intent?.id ?? null);
    if (refundOf) {
      // The refund may arrive before we processed the payment: find the session through Stripe.
      const known = await ctx.em.findOne(CheckoutSession, { paymentIntentId: refundOf });
      if (!known) {
        try {
          session = (await ctx.stripe.checkout.sessions.list({ payment_intent: refundOf, limit: 1 })).data[0] ?? null;
        } catch (error) {
          ctx.log.warn('could not look up the session of a refund', { paymentIntentId: refundOf, error: String(error) });
        }
      }
    }
  }
  const paid =
    (session?.payment_status === 'paid' &&
      ['checkout.session.completed', 'checkout.session.async_payment_succeeded', 'charge.refunded'].includes(event.type)) ||
    false;
  const receiptUrl = paid && session ? await receiptUrlOf(ctx.stripe, paymentIntentOf(session), ctx.log) : null;
  const voucher =
    session && event.type === 'checkout.session.completed' && session.payment_status === 'unpaid'
      ? await konbiniVoucherFor(ctx.stripe, session)
      : null;

  const outcome = await transact(ctx.em, async (tx) => {
    const fresh = await tx.findOne(StripeEvent, { id: eventId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!fresh || (fresh.processedAt && !options.replay)) return 'already processed';
    // A replay re-evaluates a processed event: every step below is guarded by the checkout's state,
    // so it never makes a second CheckoutPaid (sale, receipt mail).
    let result = 'ignored';
    let checkout: CheckoutSession | null = null;
    if (session) {
      checkout = await tx.findOne(
        CheckoutSession,
        {
          $or: [
            { stripeSessionId: session.id },
            { id: String(session.metadata?.checkoutId ?? '00000000-0000-0000-0000-000000000000') },
          ],
        },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      if (!checkout) result = 'unknown session';
      else if (session.amount_total !== checkout.amount || session.currency !== checkout.currency) {
        if (checkout.state !== 'complete') {
          checkout.state = 'flagged';
          checkout.flagReason = `Stripe: ${session.amount_total} ${session.currency}, ours: ${checkout.amount} ${checkout.currency}`;
        }
        ctx.log.warn('checkout amount or currency mismatch; not fulfilled', { checkoutId: checkout.id, eventId });
        result = 'flagged';
      } else {
        checkout.stripeSessionId ??= session.id;
        checkout.paymentIntentId ??= paymentIntentOf(session);
        const forSale = paid && checkout.state !== 'complete' ? await findLicenseForSale(tx, checkout.licenseId) : null;
        if (paid && checkout.state !== 'complete' && !forSale?.published) {
          // Paid after the licence was hidden (its open sessions are expired then, but a payment can
          // still arrive): no sale; the inbox and reconciliation show it for a refund. Publishing the
          // licence again and replaying the event makes the sale.
          checkout.state = 'flagged';
          checkout.flagReason = `${HIDDEN_LICENSE_FLAG}（ライセンス #${checkout.licenseId}）`;
          ctx.log.warn('payment for a hidden licence; not fulfilled', { checkoutId: checkout.id, eventId });
          result = 'flagged: hidden license';
        } else if (paid && checkout.state !== 'complete') {
          checkout.state = 'complete';
          recordEvent(tx, 'CheckoutPaid', {
            checkoutId: checkout.id,
            userId: checkout.userId ?? null,
            licenseId: checkout.licenseId,
            amount: checkout.amount,
            currency: checkout.currency,
            stripeSessionId: session.id,
            paymentIntentId: paymentIntentOf(session),
            receiptUrl,
            paidAt: new Date((event.created ?? Date.now() / 1000) * 1000).toISOString(),
          });
          result = 'paid';
        } else if (
          event.type === 'checkout.session.completed' &&
          !paid &&
          (checkout.state === 'open' || (checkout.state === 'awaiting_payment' && voucher && !checkout.konbiniExpiresAt))
        ) {
          checkout.state = 'awaiting_payment';
          if (voucher && !checkout.konbiniExpiresAt) {
            Object.assign(checkout, voucher);
            recordEvent(tx, 'KonbiniVoucherIssued', { checkoutId: checkout.id });
          }
          result = 'awaiting payment';
        } else if (event.type === 'checkout.session.async_payment_failed' && checkout.state !== 'complete') {
          // A pending konbini payment lapsed: the buyer is told once (the state moves only once).
          if (checkout.state === 'awaiting_payment' && checkout.konbiniExpiresAt) {
            recordEvent(tx, 'KonbiniPaymentLapsed', { checkoutId: checkout.id });
          }
          checkout.state = 'payment_failed';
          result = 'payment failed';
        } else if (event.type === 'checkout.session.expired' && ['open', 'awaiting_payment'].includes(checkout.state)) {
          if (checkout.state === 'awaiting_payment' && checkout.konbiniExpiresAt) {
            recordEvent(tx, 'KonbiniPaymentLapsed', { checkoutId: checkout.id });
          }
          checkout.state = 'expired';
          result = 'expired';
        }
      }
    }
    if (refundOf) {
      checkout ??= await tx.findOne(CheckoutSession, { paymentIntentId: refundOf });
      if (checkout && checkout.state !== 'flagged') {
        recordEvent(tx, 'PaymentRefunded', { checkoutId: checkout.id, refundedAt: new Date(event.created * 1000).toISOString() });
        result = result === 'paid' ? 'paid and refunded' : 'refunded';
      } else if (!checkout) {
        // Not known yet (its payment event has not been processed): leave it unprocessed and retry.
        throw new RefundBeforePayment(`refund for unknown payment ${refundOf}`);
      }
    }
    fresh.processedAt = new Date();
    // A replay that finds everything already applied keeps what the event did the first time.
    fresh.outcome = result === 'ignored' && fresh.outcome ? fresh.outcome : result;
    fresh.attempts += 1;
    fresh.failedAt = null;
    // A refund names a payment intent, not a session: the checkout's session links it (inbox search).
    fresh.stripeSessionId ??= session?.id ?? checkout?.stripeSessionId ?? null;
    return result;
  });
  ctx.log.info('stripe event reconciled', { eventId, type: event.type, outcome });
  return outcome === 'already processed' ? 'skipped' : 'done';
}

/** UserDeleted → our checkout records keep their payment facts and lose the link to the account. */
export async function forgetUser(em: Em, userId: string): Promise<'done' | 'skipped'> {
  const changed = await em.fork().nativeUpdate(CheckoutSession, { userId }, { userId: null, updatedAt: new Date() });
  return changed ? 'done' : 'skipped';
}
