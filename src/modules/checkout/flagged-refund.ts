import { LockMode } from '@mikro-orm/core';
import type * as v from 'valibot';
import { now as dbNow, db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { transact } from '../../events/outbox.ts';
import type { PaymentsPort } from '../../http/context.ts';
import { AppError } from '../../http/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import { yen } from '../../lib/yen.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import { CheckoutSession } from './entities/checkout-session.entity.ts';
import { flaggedRefundView, markFlaggedRefunded } from './flagged-refund-record.ts';
import { DUPLICATE_PAYMENT_FLAG, keptForRefund } from './paid-guard.ts';
import type { FlaggedRefundInput } from './schemas.ts';

export const FLAGGED_PAYMENT_NOT_FOUND = 'この支払いは見つかりませんでした。';
const BECAME_SALE = 'この支払いは売上になっています。返金は注文（売上）の画面から行ってください。';
const ALREADY_REFUNDED = 'この支払いは返金済みです。';
const NOT_KEPT =
  'この支払いは、購入済み・満席・非公開のライセンスへの支払いとして保留されたものではないため、ここからは返金できません。';
const NO_PAYMENT_INTENT =
  'この支払いには Stripe の支払い（PaymentIntent）の記録がないため、ショップから返金できません。Stripe のダッシュボードで返金してください。';
const STRIPE_UNAVAILABLE = '決済サービスに接続できませんでした。時間をおいて再度お試しください。';
const REFUND_IN_PROGRESS = 'この支払いの返金を処理しています。しばらくしてから画面を更新してください。';
const STRIPE_REFUSED = 'Stripe が返金を受け付けませんでした。Stripe のダッシュボードで支払いの状態を確認してください。';

/** One key per request (double clicks share it); a withdrawn one's errors, replayed by Stripe for 24 h, stay with it. */
const refundKey = (checkoutId: string, requestedAt: Date) => `refund-flagged-payment-${checkoutId}-${requestedAt.getTime()}`;

/** Under the checkout's row lock: may it be refunded from here, and record that it is being refunded (audited). */
async function decide(tx: Em, actor: Actor, sessionId: string, reason: string, at: Date) {
  const checkout = await tx.findOne(CheckoutSession, { stripeSessionId: sessionId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!checkout) throw new AppError('not_found', FLAGGED_PAYMENT_NOT_FOUND);
  if (checkout.state === 'complete') throw new AppError('conflict', BECAME_SALE, { details: { code: 'became_sale' } });
  if (checkout.refundedAt) throw new AppError('conflict', ALREADY_REFUNDED, { details: { code: 'already_refunded' } });
  if (!keptForRefund(checkout)) throw new AppError('conflict', NOT_KEPT, { details: { code: 'not_refundable' } });
  const paymentIntent = checkout.paymentIntentId;
  if (!paymentIntent) throw new AppError('conflict', NO_PAYMENT_INTENT, { details: { code: 'no_payment_intent' } });
  // Asked already and not yet confirmed (a double click): Stripe is asked again with the same key.
  if (checkout.refundRequestedAt) return { checkout, paymentIntent, again: true };
  checkout.refundRequestedAt = at;
  checkout.refundRequestedBy = actor.email;
  checkout.refundReason = reason;
  recordAudit(tx, actor, {
    action: 'payment.refund',
    targetType: 'payment',
    targetId: sessionId,
    before: { refund_state: 'none' },
    after: {
      refund_state: 'requested',
      reason,
      amount: checkout.amount,
      order_number: checkout.orderNumber ?? null,
      flag_reason: checkout.flagReason ?? null,
      payment_intent: paymentIntent,
    },
  });
  await tx.flush();
  return { checkout, paymentIntent, again: false };
}

/** Decided under the checkout's lock, asked of Stripe after the commit, recorded by whichever of this or charge.refunded comes first. */
export async function refundFlaggedPayment(
  deps: { orm: Orm; payments: PaymentsPort; log: Logger },
  actor: Actor,
  sessionId: string,
  input: v.InferOutput<typeof FlaggedRefundInput>,
) {
  const at = new Date();
  const decided = await transact(deps.orm.em.fork() as Em, (tx) => decide(tx, actor, sessionId, input.reason, at));
  const { checkout } = decided;
  const asked = await deps.payments.refundPayment({
    paymentIntentId: decided.paymentIntent,
    idempotencyKey: refundKey(checkout.id, checkout.refundRequestedAt ?? at),
    metadata: { checkout_id: checkout.id, order_number: checkout.orderNumber ?? '', kind: 'flagged_payment' },
    ...(checkout.flagReason?.startsWith(DUPLICATE_PAYMENT_FLAG) ? { reason: 'duplicate' as const } : {}),
  });
  if (asked.outcome === 'in_progress')
    throw new AppError('conflict', REFUND_IN_PROGRESS, { details: { code: 'refund_in_progress' } });
  if (asked.outcome === 'refused' || asked.outcome === 'unavailable') {
    deps.log.warn('flagged payment refund: Stripe did not take it', { sessionId, code: asked.code, err: asked.message });
    if (!decided.again) await withdraw(deps.orm, actor, sessionId, at, asked.outcome);
    throw asked.outcome === 'refused'
      ? new AppError('conflict', STRIPE_REFUSED, { details: { code: 'stripe_refused' } })
      : new AppError('unavailable', STRIPE_UNAVAILABLE);
  }
  // A refund Stripe has not yet taken (requires_action) is recorded by its charge.refunded.
  const done =
    asked.outcome === 'already_refunded' ||
    (asked.outcome === 'requested' && (asked.status === 'succeeded' || asked.status === 'pending'));
  if (done) {
    await transact(deps.orm.em.fork() as Em, async (tx) => {
      const locked = await tx.findOneOrFail(CheckoutSession, { id: checkout.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      await markFlaggedRefunded(tx, locked, {
        at: new Date(),
        by: locked.refundRequestedBy ?? actor.email,
        stripeRefundId: asked.outcome === 'requested' ? asked.refundId : null,
      });
    });
  }
  deps.log.info('flagged payment refunded', { sessionId, by: actor.id, again: decided.again, outcome: asked.outcome });
  const after = await deps.orm.em.fork().findOneOrFail(CheckoutSession, { id: checkout.id });
  const payment = flaggedRefundView(after);
  return {
    payment: { stripe_session_id: sessionId, ...(payment as NonNullable<typeof payment>) },
    message: after.refundedAt
      ? `${yen(after.refundedAmount)}（税込）を返金しました。会員に返金のお知らせメールを送ります。`
      : '返金を Stripe に依頼しました。Stripe から返金の完了が届くと「返金済み」になります。',
  };
}

/** Stripe did not take the refund: the request recorded a moment ago is withdrawn (audited). */
async function withdraw(orm: Orm, actor: Actor, sessionId: string, at: Date, why: 'refused' | 'unavailable') {
  await transact(orm.em.fork() as Em, async (tx) => {
    const withdrawn = await kysely(tx)
      .updateTable('checkout_sessions')
      .set({ refund_requested_at: null, refund_requested_by: null, refund_reason: null, updated_at: dbNow() })
      .where('stripe_session_id', '=', sessionId)
      .where('refund_requested_at', '=', at.toISOString())
      .where('refunded_at', 'is', null)
      .returning('id')
      .execute();
    if (!withdrawn.length) return;
    recordAudit(tx, actor, {
      action: 'payment.refund.failed',
      targetType: 'payment',
      targetId: sessionId,
      before: { refund_state: 'requested' },
      after: { refund_state: 'none', stripe: why },
    });
  });
}
