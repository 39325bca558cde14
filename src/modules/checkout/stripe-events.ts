// Stripe's events, from the webhook to our state: stored once in the inbox, then reconciled into the
// checkout's state and the events other modules act on (CheckoutPaid, PaymentRefunded, konbini mails).
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type Stripe from 'stripe';
import { jsonb, db as kysely, now } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { japanEndOfDayAfter } from '../../lib/japan-time.ts';
import type { Logger } from '../../lib/logger.ts';
import { findLicenseForSale } from '../licenses/index.ts';
import { bankTransferOf } from './bank-transfer.ts';
import type { BankTransferAccount } from './entities/checkout-session.entity.ts';
import { CheckoutSession, StripeEvent } from './entities/checkout-session.entity.ts';
import { markFlaggedRefunded, STRIPE_DASHBOARD } from './flagged-refund-record.ts';
import { type KonbiniVoucher, konbiniVoucherOf } from './konbini.ts';
import { HIDDEN_LICENSE_FLAG, keptForRefund, lockPurchaseOf, paymentRefusal } from './paid-guard.ts';
import { methodOf } from './payment-method.ts';

type SessionObject = Stripe.Checkout.Session;

type Ctx = { em: Em; stripe: Stripe; log: Logger; bankTransferDays: number };

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

const MAX_ERROR = 2_000;

/**
 * Processes one inbox event (the queue's job, or an operator's replay). A failure is written on the
 * event — when, why, how many attempts — and rethrown, so the queue still retries it.
 */
export async function processStripeEvent(
  ctx: Ctx,
  eventId: string,
  options: { replay?: boolean } = {},
): Promise<'done' | 'skipped'> {
  try {
    return await reconcile(ctx, eventId, options);
  } catch (error) {
    const message = (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, MAX_ERROR);
    try {
      await kysely(ctx.em.fork() as Em)
        .updateTable('stripe_events')
        .set((eb) => ({ failed_at: now(), last_error: message, attempts: eb('attempts', '+', 1) }))
        .where('id', '=', eventId)
        .execute();
    } catch (writeError) {
      ctx.log.warn('could not record a failed Stripe event', { eventId, error: String(writeError) });
    }
    throw error;
  }
}

/** Retryable: the job runs again later (BullMQ back-off), after the payment has been reconciled. */
class RefundBeforePayment extends Error {}

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
 * A completed but unpaid session: the konbini voucher or the bank transfer's virtual account Stripe
 * issued, from the payment intent. A failure to ask is thrown, so the event is retried rather than
 * leaving the buyer without numbers.
 */
async function pendingPaymentOf(stripe: Stripe, session: SessionObject) {
  const paymentIntentId = paymentIntentOf(session);
  if (!paymentIntentId) return { voucher: null, bankTransfer: null };
  const intent = await stripe.paymentIntents.retrieve(paymentIntentId);
  return { voucher: konbiniVoucherOf(intent), bankTransfer: bankTransferOf(intent) };
}

/** What an event means, with what Stripe adds to it, asked before the transaction (no network call inside). */
interface Reading {
  eventId: string;
  event: Stripe.Event;
  session: SessionObject | null;
  refundOf: string | null;
  amountRefunded: number | null;
  /** The charge is refunded in full (Stripe's `charge.refunded`). */
  fullyRefunded: boolean;
  paid: boolean;
  receiptUrl: string | null;
  voucher: KonbiniVoucher | null;
  bankTransfer: BankTransferAccount | null;
  bankTransferDays: number;
}

async function readEvent(ctx: Ctx, eventId: string, event: Stripe.Event): Promise<Reading> {
  let session: SessionObject | null = null;
  let refundOf: string | null = null;
  let amountRefunded: number | null = null;
  let fullyRefunded = false;
  if (event.type.startsWith('checkout.session.')) session = event.data.object as SessionObject;
  if (event.type === 'charge.refunded') {
    const charge = event.data.object as Stripe.Charge;
    refundOf = typeof charge.payment_intent === 'string' ? charge.payment_intent : (charge.payment_intent?.id ?? null);
    amountRefunded = charge.amount_refunded ?? null;
    fullyRefunded = charge.refunded === true;
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
  const { voucher, bankTransfer } =
    session && event.type === 'checkout.session.completed' && session.payment_status === 'unpaid'
      ? await pendingPaymentOf(ctx.stripe, session)
      : { voucher: null, bankTransfer: null };
  return {
    eventId,
    event,
    session,
    refundOf,
    amountRefunded,
    fullyRefunded,
    paid,
    receiptUrl,
    voucher,
    bankTransfer,
    bankTransferDays: ctx.bankTransferDays,
  };
}

/**
 * Turns one inbox event into state changes, idempotently and in any order: a paid session becomes
 * CheckoutPaid once (the sales module makes the sale), a delayed payment only when it succeeds,
 * a refund PaymentRefunded; a session whose amount or currency differs from ours is flagged.
 */
async function reconcile(ctx: Ctx, eventId: string, options: { replay?: boolean }): Promise<'done' | 'skipped'> {
  const row = await ctx.em.findOne(StripeEvent, { id: eventId });
  if (!row || (row.processedAt && !options.replay)) return 'skipped';
  const reading = await readEvent(ctx, eventId, row.payload);
  const { event, session, refundOf } = reading;

  const outcome = await transact(ctx.em, async (tx) => {
    const fresh = await tx.findOne(StripeEvent, { id: eventId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!fresh || (fresh.processedAt && !options.replay)) return 'already processed';
    // A replay re-evaluates a processed event: every step below is guarded by the checkout's state,
    // so it never makes a second CheckoutPaid (sale, receipt mail).
    let { result, checkout } = session
      ? await applySession(tx, ctx.log, reading, session)
      : { result: 'ignored', checkout: null };
    if (refundOf) {
      checkout ??= await tx.findOne(CheckoutSession, { paymentIntentId: refundOf }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (checkout && keptForRefund(checkout)) {
        // A payment kept without a sale, refunded in full (the shop's button, or Stripe's dashboard).
        const by = checkout.refundRequestedBy ?? STRIPE_DASHBOARD;
        if (reading.fullyRefunded && (await markFlaggedRefunded(tx, checkout, { at: new Date(event.created * 1000), by })))
          result = 'refunded';
      } else if (checkout && checkout.state !== 'flagged') {
        recordEvent(tx, 'PaymentRefunded', {
          checkoutId: checkout.id,
          refundedAt: new Date(event.created * 1000).toISOString(),
          ...(reading.amountRefunded === null ? {} : { amountRefunded: reading.amountRefunded }),
        });
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

/** Our checkout of a session (by the session's id, or the checkout id it carries), locked. */
const lockedCheckoutOf = (tx: Em, session: SessionObject) =>
  tx.findOne(
    CheckoutSession,
    {
      $or: [
        { stripeSessionId: session.id },
        { id: String(session.metadata?.checkoutId ?? '00000000-0000-0000-0000-000000000000') },
      ],
    },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );

/** A session's event applied to our checkout (locked): paid, awaiting a konbini payment, failed, expired or flagged. */
async function applySession(
  tx: Em,
  log: Logger,
  reading: Reading,
  session: SessionObject,
): Promise<{ result: string; checkout: CheckoutSession | null }> {
  const { eventId, event, paid } = reading;
  if (paid) await lockPurchaseOf(tx, session);
  const checkout = await lockedCheckoutOf(tx, session);
  if (!checkout) return { result: 'unknown session', checkout };
  if (session.amount_total !== checkout.amount || session.currency !== checkout.currency) {
    if (checkout.state !== 'complete') {
      checkout.state = 'flagged';
      checkout.flagReason = `Stripe: ${session.amount_total} ${session.currency}, ours: ${checkout.amount} ${checkout.currency}`;
    }
    log.warn('checkout amount or currency mismatch; not fulfilled', { checkoutId: checkout.id, eventId });
    return { result: 'flagged', checkout };
  }
  checkout.stripeSessionId ??= session.id;
  checkout.paymentIntentId ??= paymentIntentOf(session);
  // A flagged payment being refunded, or refunded, never becomes a sale (a replay after the licence is back on sale).
  if (paid && (checkout.refundRequestedAt || checkout.refundedAt)) return { result: 'ignored', checkout };
  if (paid && checkout.state !== 'complete') return { result: await applyPayment(tx, log, reading, checkout), checkout };
  if (event.type === 'checkout.session.completed' && !paid && awaitPayment(tx, checkout, reading)) {
    return { result: 'awaiting payment', checkout };
  }
  const lapsed =
    (event.type === 'checkout.session.async_payment_failed' && checkout.state !== 'complete') ||
    (event.type === 'checkout.session.expired' && ['open', 'superseded', 'awaiting_payment'].includes(checkout.state));
  if (!lapsed) return { result: 'ignored', checkout };
  // A pending konbini payment or bank transfer lapsed: the buyer is told once (the state moves only once).
  if (checkout.state === 'awaiting_payment' && checkout.konbiniExpiresAt) {
    recordEvent(tx, 'KonbiniPaymentLapsed', { checkoutId: checkout.id });
  }
  if (checkout.state === 'awaiting_payment' && checkout.bankTransferExpiresAt) {
    recordEvent(tx, 'BankTransferLapsed', { checkoutId: checkout.id });
  }
  const failed = event.type === 'checkout.session.async_payment_failed';
  checkout.state = failed ? 'payment_failed' : 'expired';
  return { result: failed ? 'payment failed' : 'expired', checkout };
}

/**
 * A paid session: CheckoutPaid once (the sales module makes the sale), unless the licence is hidden,
 * already held by the member, or full — then the payment is flagged for a refund, never lost.
 */
async function applyPayment(tx: Em, log: Logger, reading: Reading, checkout: CheckoutSession): Promise<string> {
  const { eventId, event, receiptUrl } = reading;
  const session = reading.session as SessionObject;
  const forSale = await findLicenseForSale(tx, checkout.licenseId);
  if (!forSale?.published) {
    // Paid after the licence was hidden (its open sessions are expired then, but a payment can
    // still arrive): no sale; the inbox and reconciliation show it for a refund. Publishing the
    // licence again and replaying the event makes the sale.
    checkout.state = 'flagged';
    checkout.flagReason = `${HIDDEN_LICENSE_FLAG}（ライセンス #${checkout.licenseId}）`;
    log.warn('payment for a hidden licence; not fulfilled', { checkoutId: checkout.id, eventId });
    return 'flagged: hidden license';
  }
  const refusal = await paymentRefusal(tx, checkout, forSale);
  if (refusal) {
    checkout.state = 'flagged';
    checkout.flagReason = refusal.reason;
    log.warn('payment not made a sale; flagged for a refund', { checkoutId: checkout.id, eventId, outcome: refusal.outcome });
    return refusal.outcome;
  }
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
    orderedAt: checkout.createdAt.toISOString(),
    paymentMethod: methodOf(checkout),
    orderNumber: checkout.orderNumber ?? null,
  });
  return 'paid';
}

/** A completed, unpaid session: its konbini voucher or bank account kept, once (false: nothing to do). */
function awaitPayment(tx: Em, checkout: CheckoutSession, { event, voucher, bankTransfer, bankTransferDays }: Reading): boolean {
  const detailsNew = (voucher && !checkout.konbiniExpiresAt) || (bankTransfer && !checkout.bankTransferExpiresAt);
  // A superseded session completed before Stripe could expire it: it is the member's order after all.
  const openState = checkout.state === 'open' || checkout.state === 'superseded';
  if (!openState && !(checkout.state === 'awaiting_payment' && detailsNew)) return false;
  checkout.state = 'awaiting_payment';
  if (voucher && !checkout.konbiniExpiresAt) {
    Object.assign(checkout, voucher);
    recordEvent(tx, 'KonbiniVoucherIssued', { checkoutId: checkout.id });
  }
  if (bankTransfer && !checkout.bankTransferExpiresAt) {
    // Our deadline (Stripe's virtual account does not expire): BANK_TRANSFER_DAYS from the order's completion.
    checkout.bankTransfer = bankTransfer;
    checkout.bankTransferExpiresAt = japanEndOfDayAfter(new Date(event.created * 1000), bankTransferDays);
    recordEvent(tx, 'BankTransferInstructionsIssued', { checkoutId: checkout.id });
  }
  return true;
}
