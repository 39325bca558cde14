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
import { type Actor, recordAudit } from '../audit/index.ts';
import { Sale, SaleStatus } from './entities/sale.entity.ts';
import { saleDto } from './record-sale.ts';
import { salesDocs } from './responses.ts';
import { RefundInput } from './schemas.ts';

export const SALE_NOT_FOUND = 'エラー: 売上が見つかりませんでした。';

/** Where a sale's refund stands: none, asked of Stripe (返金手続き中) or confirmed by Stripe's webhook. */
export type RefundState = 'none' | 'requested' | 'refunded';
export const REFUND_STATE_LABEL: Record<RefundState, string> = {
  none: '',
  requested: '返金手続き中',
  refunded: '返金済み',
};

export const refundStateOf = (sale: Pick<Sale, 'refundedAt' | 'refundRequestedAt'>): RefundState =>
  sale.refundedAt ? 'refunded' : sale.refundRequestedAt ? 'requested' : 'none';

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
const STRIPE_REFUSED =
  'Stripe が返金を受け付けませんでした。この支払いは返金できない状態の可能性があります。Stripe のダッシュボードで支払いの状態を確認してください。';

/** The idempotency key of a sale's full refund: asking twice (a double click, a retry) refunds once. */
const refundKey = (saleId: number) => `refund-sale-${saleId}`;

/**
 * A full refund of the sale's PaymentIntent, asked of Stripe from the back office. Decide and record
 * first (row lock: refunded → 409; exported without `confirm_exported` → 422; the request, who and why,
 * audited as `sale.refund`), commit, then ask Stripe (no network call inside a transaction). The sale
 * shows 返金手続き中 until Stripe's `charge.refunded` webhook marks it refunded (markRefunded), which
 * also tells the member. A sale whose refund is already under way is asked of Stripe again with the
 * same idempotency key (nothing is refunded twice; a request cut short by a crash is completed).
 * Stripe unreachable → 503 and the request is withdrawn; Stripe refusing → 409, withdrawn as well.
 */
async function requestRefund(
  deps: { orm: Orm; payments: PaymentsPort; log: Logger },
  actor: Actor,
  saleId: number,
  input: RefundRequest,
) {
  const requestedAt = new Date();
  const decided = await transact(deps.orm.em as Em, async (tx) => {
    const sale = await tx.findOne(Sale, { id: saleId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!sale) throw new AppError('not_found', SALE_NOT_FOUND);
    if (sale.refundedAt) throw new AppError('conflict', ALREADY_REFUNDED, { details: { code: 'already_refunded' } });
    const paymentIntent = sale.stripePaymentIntentId;
    if (!paymentIntent) throw new AppError('conflict', NO_PAYMENT_INTENT, { details: { code: 'no_payment_intent' } });
    if (sale.refundRequestedAt) return { paymentIntent, orderNumber: sale.orderNumber ?? null, again: true };
    const exported = await wasExported(tx, sale);
    if (exported && !input.confirm_exported) {
      throw validationError({ confirm_exported: [CONFIRM_EXPORTED] }, CONFIRM_EXPORTED);
    }
    sale.refundRequestedAt = requestedAt;
    sale.refundRequestedBy = actor.email;
    sale.refundReason = input.reason;
    recordAudit(tx, actor, {
      action: 'sale.refund',
      targetType: 'sale',
      targetId: sale.id,
      before: { refund_state: 'none' },
      after: {
        refund_state: 'requested',
        reason: input.reason,
        order_number: sale.orderNumber ?? null,
        amount: sale.amount,
        exported,
        payment_intent: paymentIntent,
      },
    });
    return { paymentIntent, orderNumber: sale.orderNumber ?? null, again: false };
  });

  const asked = await deps.payments.refundPayment({
    paymentIntentId: decided.paymentIntent,
    idempotencyKey: refundKey(saleId),
    metadata: { sale_id: String(saleId), order_number: decided.orderNumber ?? '' },
  });
  if (asked.outcome === 'requested') {
    deps.log.info('refund requested', {
      saleId,
      refund: asked.refundId,
      status: asked.status,
      by: actor.id,
      again: decided.again,
    });
  } else if (asked.outcome === 'already_refunded') {
    // Refunded at Stripe already (its dashboard, or an earlier request): its webhook records it here.
    deps.log.warn('refund: already refunded at Stripe', { saleId });
  } else {
    deps.log.warn('refund: Stripe did not take the request', { saleId, err: asked.message, code: asked.code });
    if (!decided.again) await withdraw(deps.orm, actor, saleId, requestedAt, asked.outcome);
    throw asked.outcome === 'refused'
      ? new AppError('conflict', STRIPE_REFUSED, { details: { code: 'stripe_refused' } })
      : new AppError('unavailable', STRIPE_UNAVAILABLE);
  }
  const sale = await deps.orm.em.fork().findOneOrFail(Sale, { id: saleId });
  const state = refundStateOf(sale);
  return {
    sale: saleDto(sale),
    refund: {
      state,
      state_label: REFUND_STATE_LABEL[state],
      requested_at: sale.refundRequestedAt?.toISOString() ?? null,
      requested_by: sale.refundRequestedBy ?? null,
      reason: sale.refundReason ?? null,
      refunded_at: sale.refundedAt?.toISOString() ?? null,
    },
    message:
      state === 'refunded'
        ? '返金が完了しました。'
        : '返金を Stripe に依頼しました。Stripe から返金の完了が届くまで「返金手続き中」と表示されます。',
  };
}

/** Stripe did not take the refund: the request recorded a moment ago is withdrawn (and that is audited). */
async function withdraw(orm: Orm, actor: Actor, saleId: number, requestedAt: Date, why: 'refused' | 'unavailable') {
  await transact(orm.em as Em, async (tx) => {
    const withdrawn = await kysely(tx)
      .updateTable('sales')
      .set({ refund_requested_at: null, refund_requested_by: null, refund_reason: null, updated_at: dbNow() })
      .where('id', '=', saleId)
      .where('refund_requested_at', '=', requestedAt.toISOString())
      .where('refunded_at', 'is', null)
      .returning('id')
      .execute();
    if (!withdrawn.length) return;
    recordAudit(tx, actor, {
      action: 'sale.refund.failed',
      targetType: 'sale',
      targetId: saleId,
      before: { refund_state: 'requested' },
      after: { refund_state: 'none', stripe: why },
    });
  });
}

/** POST /api/sales/{id}/refund (administrators): a full refund asked of Stripe. GET /api/sales/{id} is the host's. */
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
