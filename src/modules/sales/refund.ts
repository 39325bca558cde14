import { LockMode } from '@mikro-orm/core';
import { Hono } from 'hono';
import { sql } from 'kysely';
import type * as v from 'valibot';
import { now as dbNow, db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { transact } from '../../events/outbox.ts';
import type { AppEnv, PaymentsPort } from '../../http/context.ts';
import { AppError, validationError } from '../../http/errors.ts';
import { permit, signedInUser } from '../../http/guards.ts';
import { NUMERIC_ID } from '../../http/path-ids.ts';
import { jsonInput } from '../../http/validate.ts';
import type { Logger } from '../../lib/logger.ts';
import { yen } from '../../lib/yen.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import { SaleRefund } from './entities/refund.entity.ts';
import { Sale, SaleStatus } from './entities/sale.entity.ts';
import { saleDto } from './record-sale.ts';
import { salesDocs } from './responses.ts';
import { RefundInput } from './schemas.ts';

export const SALE_NOT_FOUND = 'この注文（売上）は見つかりませんでした。';

/**
 * Where a sale's refund stands: none, asked of Stripe (返金手続き中), part of it confirmed (一部返金)
 * or all of it (返金済み).
 */
export type RefundState = 'none' | 'requested' | 'partially_refunded' | 'refunded';
const REFUND_STATE_LABEL: Record<RefundState, string> = {
  none: '',
  requested: '返金手続き中',
  partially_refunded: '一部返金',
  refunded: '返金済み',
};

const refundStateOf = (sale: Pick<Sale, 'refundedAt' | 'refundRequestedAt' | 'refundedAmount'>, pending = false): RefundState =>
  sale.refundedAt
    ? 'refunded'
    : sale.refundRequestedAt || pending
      ? 'requested'
      : sale.refundedAmount > 0
        ? 'partially_refunded'
        : 'none';

/**
 * Whether the training system may already hold the sale: it left 出力待ち (処理中 or 登録済み, also
 * after a 差し戻し back to 出力待ち from a batch) or an export batch froze it.
 */
export async function wasExported(em: Em, sale: Pick<Sale, 'id' | 'status' | 'batchId'>): Promise<boolean> {
  if (sale.status !== SaleStatus.AwaitingExport || sale.batchId) return true;
  const row = await kysely(em)
    .selectNoFrom((eb) =>
      eb
        .or([
          eb.exists(eb.selectFrom('export_sales').select(sql.lit(1).as('one')).where('sale_id', '=', sale.id)),
          eb.exists(eb.selectFrom('sale_status_move_sales').select(sql.lit(1).as('one')).where('sale_id', '=', sale.id)),
        ])
        .as('exported'),
    )
    .executeTakeFirst();
  return Boolean(row?.exported);
}

export type RefundRequest = v.InferOutput<typeof RefundInput>;

const ALREADY_REFUNDED = 'この売上は返金済みです。';
const NO_PAYMENT_INTENT =
  'この売上には Stripe の支払い（PaymentIntent）の記録がないため、管理画面から返金できません。Stripe のダッシュボードで返金してください。';
const CONFIRM_EXPORTED =
  'この売上は研修管理システム向けに出力済みです。返金する場合は、研修管理システムからの登録の取り消しを連絡することを確認してください。';
const STRIPE_UNAVAILABLE = '決済サービスに接続できませんでした。時間をおいて再度お試しください。';
const REFUND_IN_PROGRESS = 'この返金を処理しています。しばらくしてから画面を更新してください。';
const STRIPE_REFUSED =
  'Stripe が返金を受け付けませんでした。この支払いは返金できない状態の可能性があります。Stripe のダッシュボードで支払いの状態を確認してください。';

/** One refund row, one key: asked twice it refunds once; a withdrawn row takes Stripe's replayed errors with it. */
const refundKey = (saleId: number, refundId: number) => `refund-sale-${saleId}-${refundId}`;

const overRemaining = (remaining: number) => `返金額は、まだ返金していない${yen(remaining)}以内で入力してください。`;

/** A refund asked again while Stripe has not confirmed it: the same amount (or none, nothing left) and reason. */
const sameRequest = (pending: SaleRefund[], input: RefundRequest, remaining: number) =>
  pending.findLast((row) =>
    input.amount === undefined ? remaining === 0 : row.amount === input.amount && row.reason === input.reason,
  );

/** Under the sale's row lock: what to ask of Stripe, recorded and audited (or the same request again). */
async function decideRefund(tx: Em, actor: Actor, saleId: number, input: RefundRequest, requestedAt: Date) {
  const sale = await tx.findOne(Sale, { id: saleId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!sale) throw new AppError('not_found', SALE_NOT_FOUND);
  if (sale.refundedAt) throw new AppError('conflict', ALREADY_REFUNDED, { details: { code: 'already_refunded' } });
  const paymentIntent = sale.stripePaymentIntentId;
  if (!paymentIntent) throw new AppError('conflict', NO_PAYMENT_INTENT, { details: { code: 'no_payment_intent' } });
  const refunds = await tx.find(SaleRefund, { saleId }, { orderBy: { id: 'asc' } });
  const pending = refunds.filter((row) => !row.refundedAt);
  const remaining = sale.amount - sale.refundedAmount - pending.reduce((n, row) => n + row.amount, 0);
  const orderNumber = sale.orderNumber ?? null;
  const again = sameRequest(pending, input, remaining);
  if (again) return { paymentIntent, orderNumber, again: true, refund: again, whole: false };
  const amount = input.amount ?? remaining;
  if (amount > remaining || remaining <= 0) {
    throw validationError({ amount: [overRemaining(Math.max(remaining, 0))] }, overRemaining(Math.max(remaining, 0)));
  }
  const exported = await wasExported(tx, sale);
  if (exported && !input.confirm_exported) {
    throw validationError({ confirm_exported: [CONFIRM_EXPORTED] }, CONFIRM_EXPORTED);
  }
  const refund = tx.create(SaleRefund, {
    saleId,
    amount,
    reason: input.reason,
    requestedBy: actor.email,
    requestedAt,
    createdAt: requestedAt,
  });
  const whole = amount === remaining;
  if (whole) {
    sale.refundRequestedAt = requestedAt;
    sale.refundRequestedBy = actor.email;
    sale.refundReason = input.reason;
  }
  await tx.flush();
  recordAudit(tx, actor, {
    action: 'sale.refund',
    targetType: 'sale',
    targetId: sale.id,
    before: { refund_state: refundStateOf(sale), refunded_amount: sale.refundedAmount },
    after: {
      refund_state: 'requested',
      reason: input.reason,
      order_number: orderNumber,
      amount: sale.amount,
      refund_amount: amount,
      exported,
      payment_intent: paymentIntent,
    },
  });
  return { paymentIntent, orderNumber, again: false, refund, whole };
}

/**
 * A refund of the sale's PaymentIntent — `amount` yen, or whatever remains — asked of Stripe from the
 * back office. Decide and record first (row lock: refunded → 409; more than remains → 422; exported
 * without `confirm_exported` → 422; the request, who, why and how much, audited as `sale.refund`),
 * commit, then ask Stripe (no network call inside a transaction). A refund of all that remains makes
 * the sale 返金手続き中 (and keeps it out of the training-system CSV); Stripe's `charge.refunded`
 * confirms each refund (markRefunded), which also tells the member. The same request while it is
 * under way is asked of Stripe again with the same idempotency key (nothing is refunded twice).
 * Stripe unreachable → 503 and the request is withdrawn; Stripe refusing → 409, withdrawn as well.
 */
async function requestRefund(
  deps: { orm: Orm; payments: PaymentsPort; log: Logger },
  actor: Actor,
  saleId: number,
  input: RefundRequest,
) {
  const requestedAt = new Date();
  const decided = await transact(deps.orm.em as Em, (tx) => decideRefund(tx, actor, saleId, input, requestedAt));

  const asked = await deps.payments.refundPayment({
    paymentIntentId: decided.paymentIntent,
    idempotencyKey: refundKey(saleId, decided.refund.id),
    metadata: { sale_id: String(saleId), order_number: decided.orderNumber ?? '', refund_id: String(decided.refund.id) },
    amount: decided.refund.amount,
  });
  if (asked.outcome === 'requested') {
    await kysely(deps.orm.em.fork() as Em)
      .updateTable('sale_refunds')
      .set({ stripe_refund_id: asked.refundId })
      .where('id', '=', decided.refund.id)
      .execute();
    deps.log.info('refund requested', {
      saleId,
      refund: asked.refundId,
      amount: decided.refund.amount,
      status: asked.status,
      by: actor.id,
      again: decided.again,
    });
  } else if (asked.outcome === 'in_progress') {
    throw new AppError('conflict', REFUND_IN_PROGRESS, { details: { code: 'refund_in_progress' } });
  } else if (asked.outcome === 'already_refunded') {
    // Refunded at Stripe already (its dashboard, or an earlier request): its webhook records it here.
    deps.log.warn('refund: already refunded at Stripe', { saleId });
  } else {
    deps.log.warn('refund: Stripe did not take the request', { saleId, err: asked.message, code: asked.code });
    if (!decided.again)
      await withdraw(deps.orm, actor, saleId, decided.refund.id, decided.whole ? requestedAt : null, asked.outcome);
    throw asked.outcome === 'refused'
      ? new AppError('conflict', STRIPE_REFUSED, { details: { code: 'stripe_refused' } })
      : new AppError('unavailable', STRIPE_UNAVAILABLE);
  }
  const em = deps.orm.em.fork() as Em;
  const sale = await em.findOneOrFail(Sale, { id: saleId });
  const refund = await refundSummary(em, sale);
  return {
    sale: saleDto(sale),
    refund,
    message:
      refund.state === 'refunded'
        ? '返金が完了しました。'
        : `${yen(decided.refund.amount)}の返金を Stripe に依頼しました。Stripe から返金の完了が届くまで「返金手続き中」と表示されます。`,
  };
}

/** Stripe did not take the refund: the request recorded a moment ago is withdrawn (and that is audited). */
async function withdraw(
  orm: Orm,
  actor: Actor,
  saleId: number,
  refundId: number,
  wholeAskedAt: Date | null,
  why: 'refused' | 'unavailable',
) {
  await transact(orm.em as Em, async (tx) => {
    const withdrawn = await kysely(tx)
      .deleteFrom('sale_refunds')
      .where('id', '=', refundId)
      .where('refunded_at', 'is', null)
      .returning('amount')
      .execute();
    if (!withdrawn.length) return;
    if (wholeAskedAt) {
      await kysely(tx)
        .updateTable('sales')
        .set({ refund_requested_at: null, refund_requested_by: null, refund_reason: null, updated_at: dbNow() })
        .where('id', '=', saleId)
        .where('refund_requested_at', '=', wholeAskedAt.toISOString())
        .where('refunded_at', 'is', null)
        .execute();
    }
    recordAudit(tx, actor, {
      action: 'sale.refund.failed',
      targetType: 'sale',
      targetId: saleId,
      before: { refund_state: 'requested' },
      after: { refund_state: 'none', refund_amount: withdrawn[0]?.amount ?? null, stripe: why },
    });
  });
}

/** A sale's refunds for the order detail and the refund's answer: state, totals and each refund. */
export async function refundSummary(em: Em, sale: Sale) {
  const rows = await kysely(em)
    .selectFrom('sale_refunds')
    .select(['id', 'amount', 'reason', 'requested_by', 'requested_at', 'refunded_at'])
    .where('sale_id', '=', sale.id)
    .orderBy('id')
    .execute();
  const pending = rows.filter((row) => !row.refunded_at);
  const state = refundStateOf(sale, pending.length > 0);
  const latest = rows.at(-1);
  const iso = (at: string | Date | null) => (at ? new Date(at).toISOString() : null);
  return {
    state,
    state_label: REFUND_STATE_LABEL[state],
    requested_at: iso(sale.refundRequestedAt ?? latest?.requested_at ?? null),
    requested_by: sale.refundRequestedBy ?? latest?.requested_by ?? null,
    reason: sale.refundReason ?? latest?.reason ?? null,
    refunded_at: sale.refundedAt?.toISOString() ?? null,
    refunded_amount: sale.refundedAmount,
    pending_amount: pending.reduce((n, row) => n + row.amount, 0),
    remaining_amount: sale.amount - sale.refundedAmount - pending.reduce((n, row) => n + row.amount, 0),
    refunds: rows.map((row) => ({
      id: row.id,
      amount: row.amount,
      reason: row.reason,
      requested_by: row.requested_by,
      requested_at: iso(row.requested_at),
      refunded_at: iso(row.refunded_at),
    })),
  };
}

/** POST /api/sales/{id}/refund (administrators): a refund, whole or partial, asked of Stripe. GET /api/sales/{id} is the host's. */
export const refundRoutes = new Hono<AppEnv>().post(
  `/sales/${NUMERIC_ID}/refund`,
  salesDocs.refund,
  permit('sales:refund'),
  async (c) => {
    const input = await jsonInput(c, RefundInput);
    const user = signedInUser(c);
    const { orm, payments } = c.var.deps;
    return c.json(
      await requestRefund(
        { orm, payments, log: c.var.log },
        { id: user.id, email: user.email },
        Number(c.req.param('id')),
        input,
      ),
    );
  },
);
