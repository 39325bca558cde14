import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { Queue } from 'bullmq';
import { sql } from 'kysely';
import type Stripe from 'stripe';
import { db as kysely, now } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import type { EventPayload } from '../../events/contracts.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { JAPAN_TIME_ZONE, japanDay } from '../../lib/japan-time.ts';
import type { Logger } from '../../lib/logger.ts';
import { yen } from '../../lib/yen.ts';
import { type SalePayment, salePaymentsOfPaymentIntents, salePaymentsOfSessions, salePaymentsSince } from '../sales/index.ts';
import { CheckoutSession, StripeEvent } from './entities/checkout-session.entity.ts';
import { PaymentFinding, ReconciliationRun } from './entities/reconciliation.entity.ts';
import { markFlaggedRefunded, STRIPE_DASHBOARD } from './flagged-refund-record.ts';
import { DUPLICATE_PAYMENT_FLAG, HIDDEN_LICENSE_FLAG, OVER_CAPACITY_FLAG } from './paid-guard.ts';

const REFUND_FLAGS = [DUPLICATE_PAYMENT_FLAG, OVER_CAPACITY_FLAG];

/** How far back a run looks by default (Checkout Sessions created, sales paid, refunds made). */
export const RECONCILIATION_DAYS = 7;
export const RUN_NOT_FOUND = '照合の記録が見つかりませんでした。';
/** The nightly run: 03:00 Japan time, one job per night however many workers run (BullMQ job scheduler). */
const NIGHTLY_SCHEDULER_ID = 'nightly-payment-reconciliation';
const NIGHTLY_PATTERN = '0 3 * * *';

export type FindingKind = 'paid_without_sale' | 'sale_without_payment' | 'amount_mismatch' | 'refund_not_recorded';

export const FINDING_LABELS: Record<FindingKind, string> = {
  paid_without_sale: '支払い済みなのに売上がない',
  sale_without_payment: '売上があるのに支払いがない',
  amount_mismatch: '金額・通貨の不一致',
  refund_not_recorded: 'Stripe で返金済みだが未反映',
};

export const RUN_STATE_LABELS: Record<string, string> = { queued: '待機中', running: '照合中', done: '完了', failed: '失敗' };

/**
 * Registers the nightly run with BullMQ's job scheduler on the payments queue (idempotent: every
 * worker may call it; one job is produced per 03:00 JST). The job carries a ReconciliationRequested event.
 */
export async function scheduleNightlyReconciliation(queue: Queue): Promise<void> {
  await queue.upsertJobScheduler(
    NIGHTLY_SCHEDULER_ID,
    { pattern: NIGHTLY_PATTERN, tz: JAPAN_TIME_ZONE },
    {
      name: 'ReconciliationRequested',
      data: {
        id: NIGHTLY_SCHEDULER_ID,
        name: 'ReconciliationRequested',
        occurredAt: new Date().toISOString(),
        payload: { trigger: 'schedule' },
      },
    },
  );
}

/** The slot of a scheduled run: its Japan date, so a night runs once even if the job is delivered twice. */
const nightSlot = (at: Date) => `nightly:${japanDay(at)}`;
/** ReconciliationRequested → compare and record the differences (idempotent per run). */
export async function runReconciliation(
  ctx: { em: Em; stripe: Stripe; log: Logger },
  request: EventPayload<'ReconciliationRequested'>,
): Promise<'done' | 'skipped'> {
  const em = ctx.em.fork() as Em;
  let runId = request.runId;
  if (!runId) {
    const slot = nightSlot(new Date());
    const inserted = await kysely(em)
      .insertInto('reconciliation_runs')
      .values({ id: randomUUID(), trigger: 'schedule', slot, days: RECONCILIATION_DAYS, state: 'queued', created_at: now() })
      .onConflict((oc) => oc.column('slot').doNothing())
      .returning('id')
      .executeTakeFirst();
    const existing =
      inserted ?? (await kysely(em).selectFrom('reconciliation_runs').select('id').where('slot', '=', slot).executeTakeFirst());
    if (!existing) return 'skipped';
    runId = existing.id;
  }
  const claimed = await kysely(em)
    .updateTable('reconciliation_runs')
    .set({ state: 'running', started_at: now(), error: null })
    .where('id', '=', runId)
    .where('state', 'in', ['queued', 'failed'])
    .returning('days')
    .executeTakeFirst();
  const days = claimed?.days;
  if (days === undefined) return 'skipped';
  const id = runId;
  let result: Awaited<ReturnType<typeof compare>>;
  try {
    result = await compare(em, ctx.stripe, days);
    await transact(em, (tx) => recordResult(tx, id, result));
  } catch (error) {
    const message = String(error instanceof Error ? error.message : error).slice(0, 2_000);
    ctx.log.error('payment reconciliation failed', { runId: id, days, error: message });
    await transact(em, async (tx) => {
      await kysely(tx)
        .updateTable('reconciliation_runs')
        .set({ state: 'failed', finished_at: now(), error: message })
        .where('id', '=', id)
        .execute();
      await flagRun(tx, id, 'failed');
    }).catch((recordError: unknown) =>
      ctx.log.error('payment reconciliation: could not record its failure', { runId: id, error: String(recordError) }),
    );
    throw error;
  }
  if (result.findings.length > 0) {
    const some = result.findings.slice(0, 20);
    ctx.log.warn('payment reconciliation found differences', {
      runId: id,
      findings: result.findings.length,
      kinds: countByKind(result.findings),
      sessions: some.flatMap((f) => (f.stripeSessionId ? [f.stripeSessionId] : [])),
      sales: some.flatMap((f) => (f.saleId ? [f.saleId] : [])),
      events: some.flatMap((f) => (f.eventId ? [f.eventId] : [])),
    });
  } else {
    ctx.log.info('payments reconciled', { runId: id, findings: 0, sessions: result.sessionsChecked });
  }
  return 'done';
}

const countByKind = (findings: readonly { kind: string }[]) => {
  const counts: Record<string, number> = {};
  for (const finding of findings) counts[finding.kind] = (counts[finding.kind] ?? 0) + 1;
  return counts;
};

/**
 * Tells the administrators about a run, once per outcome (in the transaction that records it): the
 * first failure of a run — its retries send nothing more — and its differences, should a retry then
 * find some. New differences take the run back onto the admin menu even if its failure was 確認済み.
 */
async function flagRun(tx: Em, runId: string, outcome: 'findings' | 'failed'): Promise<void> {
  const runs = kysely(tx).updateTable('reconciliation_runs').where('id', '=', runId);
  const flagged = await (outcome === 'findings'
    ? runs
        .set({ notified: 'findings', acknowledged_at: null, acknowledged_by: null, acknowledgement_note: null })
        .where((eb) => eb.or([eb('notified', 'is', null), eb('notified', '=', 'failed')]))
    : runs.set({ notified: 'failed' }).where('notified', 'is', null)
  )
    .returning('id')
    .executeTakeFirst();
  if (flagged) recordEvent(tx, 'ReconciliationFlagged', { runId, outcome });
}

type FindingInput = Omit<
  PaymentFinding,
  'id' | 'runId' | 'createdAt' | 'acknowledgedAt' | 'acknowledgedBy' | 'acknowledgementNote'
>;

/** How an administrator finds the sale: its order number (older sales have none: the id, said to be one). */
const saleName = (sale: SalePayment) => (sale.orderNumber ? `注文番号 ${sale.orderNumber}` : `売上ID ${sale.id}`);

const money = (amount: number | null | undefined, currency: string | null | undefined) =>
  currency === 'jpy' ? yen(Number(amount ?? 0)) : `${amount ?? '—'} ${currency ?? ''}`.trim();

/**
 * Stripe's side through the real SDK's list calls (auto-paginated): Checkout Sessions created in the
 * window and refunds made in it. Our side: sales of those sessions and sales paid in the window.
 */
async function compare(em: Em, stripe: Stripe, days: number) {
  const since = new Date(Date.now() - days * 86_400_000);
  const gte = Math.floor(since.getTime() / 1000);
  const findings: FindingInput[] = [];

  const paid = new Map<string, Stripe.Checkout.Session>();
  let sessionsChecked = 0;
  for await (const session of stripe.checkout.sessions.list({ created: { gte }, limit: 100 })) {
    sessionsChecked++;
    if (session.payment_status === 'paid') paid.set(session.id, session);
  }
  const salesOfPaid = new Map((await salePaymentsOfSessions(em, [...paid.keys()])).map((sale) => [sale.stripeSessionId, sale]));

  const refundedWithoutSale: string[] = [];
  for (const session of paid.values()) {
    const sale = salesOfPaid.get(session.id);
    if (!sale) {
      if (await refundedInFull(stripe, session)) refundedWithoutSale.push(session.id);
      else findings.push(await paidWithoutSale(em, session));
    } else if (sale.amount !== session.amount_total || sale.currency !== session.currency) findings.push(mismatch(session, sale));
  }

  // Sales of the window whose session was not among the paid ones: ask Stripe about each (a konbini
  // session created before the window and paid within it is fine).
  const recent = await salePaymentsSince(em, since);
  for (const sale of recent) {
    if (paid.has(sale.stripeSessionId)) continue;
    let session: Stripe.Checkout.Session | null = null;
    try {
      session = await stripe.checkout.sessions.retrieve(sale.stripeSessionId);
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode !== 404) throw error;
    }
    if (session?.payment_status !== 'paid') {
      findings.push({
        kind: 'sale_without_payment',
        stripeSessionId: sale.stripeSessionId,
        paymentIntentId: sale.paymentIntentId,
        saleId: sale.id,
        eventId: null,
        stripeAmount: session?.amount_total ?? null,
        stripeCurrency: session?.currency ?? null,
        ourAmount: sale.amount,
        ourCurrency: sale.currency,
        detail: session
          ? `${saleName(sale)} の Checkout Session は Stripe で未払い（${session.payment_status}）です。`
          : `${saleName(sale)} の Checkout Session が Stripe に見つかりません。`,
      });
    } else if (sale.amount !== session.amount_total || sale.currency !== session.currency) {
      findings.push(mismatch(session, sale));
    }
  }

  const refunded = new Map<string, Stripe.Refund>();
  let refundsChecked = 0;
  for await (const refund of stripe.refunds.list({ created: { gte }, limit: 100 })) {
    refundsChecked++;
    const pi = typeof refund.payment_intent === 'string' ? refund.payment_intent : refund.payment_intent?.id;
    if (pi && refund.status === 'succeeded') refunded.set(pi, refund);
  }
  for (const sale of await salePaymentsOfPaymentIntents(em, [...refunded.keys()])) {
    if (sale.refundedAt) continue;
    const refund = refunded.get(sale.paymentIntentId ?? '') as Stripe.Refund;
    findings.push({
      kind: 'refund_not_recorded',
      stripeSessionId: sale.stripeSessionId,
      paymentIntentId: sale.paymentIntentId,
      saleId: sale.id,
      eventId: await latestEventId(em, { paymentIntentId: sale.paymentIntentId }),
      stripeAmount: refund.amount,
      stripeCurrency: refund.currency,
      ourAmount: sale.amount,
      ourCurrency: sale.currency,
      detail: `Stripe では ${money(refund.amount, refund.currency)} が返金済みですが、${saleName(sale)} は返金になっていません。`,
    });
  }
  return { findings, refundedWithoutSale, sessionsChecked, salesChecked: recent.length, refundsChecked };
}

/** The run's findings in place of any earlier attempt's, its figures, and the refunds it saw at Stripe. */
async function recordResult(tx: Em, id: string, result: Awaited<ReturnType<typeof compare>>): Promise<void> {
  await tx.nativeDelete(PaymentFinding, { runId: id });
  for (const finding of result.findings)
    tx.create(PaymentFinding, { id: randomUUID(), runId: id, createdAt: new Date(), ...finding });
  await tx.nativeUpdate(
    ReconciliationRun,
    { id },
    {
      state: 'done',
      finishedAt: new Date(),
      sessionsChecked: result.sessionsChecked,
      salesChecked: result.salesChecked,
      refundsChecked: result.refundsChecked,
      findings: result.findings.length,
    },
  );
  if (result.findings.length > 0) await flagRun(tx, id, 'findings');
  await recordRefundsSeen(tx, result.refundedWithoutSale);
}

/** A kept payment refunded at Stripe whose charge.refunded never came: recorded now, the member told. */
async function recordRefundsSeen(tx: Em, sessionIds: string[]): Promise<void> {
  for (const stripeSessionId of sessionIds) {
    const checkout = await tx.findOne(CheckoutSession, { stripeSessionId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (checkout) await markFlaggedRefunded(tx, checkout, { at: new Date(), by: checkout.refundRequestedBy ?? STRIPE_DASHBOARD });
  }
}

/** A paid session without a sale whose charge Stripe refunded in full is no difference: nothing is owed. */
async function refundedInFull(stripe: Stripe, session: Stripe.Checkout.Session): Promise<boolean> {
  const paymentIntentId =
    typeof session.payment_intent === 'string' ? session.payment_intent : (session.payment_intent?.id ?? null);
  if (!paymentIntentId) return false;
  const intent = await stripe.paymentIntents.retrieve(paymentIntentId, { expand: ['latest_charge'] });
  const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
  return Boolean(charge && charge.amount > 0 && charge.amount_refunded >= charge.amount);
}

function mismatch(session: Stripe.Checkout.Session, sale: SalePayment): FindingInput {
  return {
    kind: 'amount_mismatch',
    stripeSessionId: session.id,
    paymentIntentId: sale.paymentIntentId,
    saleId: sale.id,
    eventId: null,
    stripeAmount: session.amount_total,
    stripeCurrency: session.currency,
    ourAmount: sale.amount,
    ourCurrency: sale.currency,
    detail: `Stripe の支払いは ${money(session.amount_total, session.currency)}、${saleName(sale)} は ${money(sale.amount, sale.currency)} です。`,
  };
}

async function paidWithoutSale(em: Em, session: Stripe.Checkout.Session): Promise<FindingInput> {
  const eventId = await latestEventId(em, { sessionId: session.id });
  const checkout = await em.findOne(CheckoutSession, { stripeSessionId: session.id });
  const reasons = [`Stripe で ${money(session.amount_total, session.currency)} の支払いが完了していますが、売上がありません。`];
  if (checkout?.state === 'flagged' && checkout.flagReason?.startsWith(HIDDEN_LICENSE_FLAG)) {
    reasons.push(`${checkout.flagReason}のため保留しています。返金するか、ライセンスを公開に戻して再実行してください。`);
  } else if (checkout?.state === 'flagged' && REFUND_FLAGS.some((flag) => checkout.flagReason?.startsWith(flag))) {
    reasons.push(`${checkout.flagReason}のため売上にしていません。返金してください。`);
  } else if (checkout?.state === 'flagged') reasons.push(`金額の不一致で保留しています（${checkout.flagReason ?? ''}）。`);
  else if (!checkout) reasons.push('この店の購入手続きの記録がありません。');
  reasons.push(eventId ? 'Webhook イベントを再実行できます。' : 'Webhook イベントを受信していません。');
  return {
    kind: 'paid_without_sale',
    stripeSessionId: session.id,
    paymentIntentId: typeof session.payment_intent === 'string' ? session.payment_intent : (session.payment_intent?.id ?? null),
    saleId: null,
    eventId,
    stripeAmount: session.amount_total,
    stripeCurrency: session.currency,
    ourAmount: checkout?.amount ?? null,
    ourCurrency: checkout?.currency ?? null,
    detail: reasons.join(''),
  };
}

/** The inbox event to replay for a session (its completion first) or a refunded payment. */
async function latestEventId(em: Em, of: { sessionId?: string; paymentIntentId?: string | null }): Promise<string | null> {
  if (of.sessionId) {
    const rows = await em.find(
      StripeEvent,
      {
        stripeSessionId: of.sessionId,
        type: { $in: ['checkout.session.completed', 'checkout.session.async_payment_succeeded'] },
      },
      { orderBy: { receivedAt: 'desc' }, limit: 1, fields: ['id'] },
    );
    return rows[0]?.id ?? null;
  }
  if (of.paymentIntentId) {
    const row = await kysely(em)
      .selectFrom('stripe_events')
      .select('id')
      .where('type', '=', 'charge.refunded')
      // A path into the stored Stripe event (any JSON: the builder's typed paths need a declared shape).
      .where(sql<string>`${sql.ref('payload')}->'data'->'object'->>'payment_intent'`, '=', of.paymentIntentId)
      .orderBy('received_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.id ?? null;
  }
  return null;
}
