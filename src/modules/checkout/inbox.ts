import type { Expression, SqlBool } from 'kysely';
import type Stripe from 'stripe';
import { countAll, japanDayAfter, japanDayStart, db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { transact } from '../../events/outbox.ts';
import { AppError } from '../../http/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import { saleOfOrderNumber, salePaymentsOfSessions } from '../sales/index.ts';
import { StripeEvent } from './entities/checkout-session.entity.ts';
import { type InboxPayment, inboxPayments, payloadAmount } from './inbox-buyers.ts';
import { processStripeEvent } from './stripe-events.ts';

export const STRIPE_EVENT_NOT_FOUND = 'Stripe イベントが見つかりませんでした。';

type InboxState = 'received' | 'processed' | 'failed';

/** Japanese names of the Stripe events the shop handles (others are stored and shown by type). */
const EVENT_TYPE_LABELS: Record<string, string> = {
  'checkout.session.completed': '決済手続きの完了',
  'checkout.session.async_payment_succeeded': 'コンビニ決済の入金',
  'checkout.session.async_payment_failed': 'コンビニ決済の失敗（期限切れ）',
  'checkout.session.expired': '決済ページの期限切れ',
  'charge.refunded': '返金',
};

/** What processing made of an event (`outcome` of reconcile). */
export const OUTCOME_LABELS: Record<string, string> = {
  paid: '売上を記録',
  'paid and refunded': '売上を記録し返金を反映',
  refunded: '返金を反映',
  'awaiting payment': '入金待ち（コンビニ決済）',
  'payment failed': '支払い失敗を反映',
  expired: '期限切れを反映',
  flagged: '金額・通貨の不一致（売上にしていません）',
  'flagged: hidden license': '非公開のライセンスへの支払い（売上にしていません。返金してください）',
  'flagged: duplicate payment': '購入済みのライセンスへの重複した支払い（売上にしていません。返金してください）',
  'flagged: over capacity': '満席のライセンスへの支払い（売上にしていません。返金してください）',
  'unknown session': '対応する購入手続きがありません',
  ignored: '対応不要',
};

const stateOf = (row: Pick<StripeEvent, 'processedAt' | 'failedAt'>): InboxState =>
  row.failedAt ? 'failed' : row.processedAt ? 'processed' : 'received';

function view(
  row: StripeEvent,
  orderNumbers: ReadonlyMap<string, string | null> = new Map(),
  payments: ReadonlyMap<string, InboxPayment> = new Map(),
  saleIds: ReadonlyMap<string, number> = new Map(),
) {
  const payment = row.stripeSessionId ? payments.get(row.stripeSessionId) : undefined;
  const amount = payment ?? payloadAmount(row.payload);
  return {
    id: row.id,
    type: row.type,
    type_label: EVENT_TYPE_LABELS[row.type] ?? row.type,
    state: stateOf(row),
    received_at: row.receivedAt,
    processed_at: row.processedAt ?? null,
    failed_at: row.failedAt ?? null,
    attempts: row.attempts,
    outcome: row.outcome ?? null,
    outcome_label: row.outcome ? (OUTCOME_LABELS[row.outcome] ?? row.outcome) : null,
    error: row.lastError ?? null,
    stripe_session_id: row.stripeSessionId ?? null,
    // The 注文番号 of the sale this event's session made, if any.
    order_number: (row.stripeSessionId && orderNumbers.get(row.stripeSessionId)) || null,
    // The amount and the member who paid it (our Checkout Session; Stripe's amount for a session we never made).
    amount: amount?.amount ?? null,
    currency: amount?.currency ?? null,
    buyer: payment?.buyer ?? null,
    buyer_deleted: payment?.buyer_deleted ?? false,
    // That sale (the row links to its order detail).
    sale_id: (row.stripeSessionId && saleIds.get(row.stripeSessionId)) || null,
    // The payment's own event (not its later ones) offers its refund.
    refund: (row.outcome?.startsWith('flagged') && payment?.refund) || null,
  };
}
export type InboxEventView = ReturnType<typeof view>;

export interface InboxFilter {
  type?: string;
  state?: InboxState;
  sessionId?: string;
  /** A sale's 注文番号 (any case, hyphens or none): the events of its Checkout Session. */
  orderNumber?: string;
  from?: string;
  to?: string;
}

/** The inbox, newest first, filtered by type, state, session and JST receipt dates. */
export async function listStripeEvents(orm: Orm, filter: InboxFilter, page: number, perPage: number) {
  const em = orm.em.fork() as Em;
  // The sales module finds the sale (through its unique index); the inbox never reads sales itself.
  const sale = filter.orderNumber ? await saleOfOrderNumber(em, filter.orderNumber) : undefined;
  if (sale === null) return { events: [], total: 0, page, per_page: perPage };
  const events = kysely(em)
    .selectFrom('stripe_events')
    .where((eb) => {
      const clauses: Expression<SqlBool>[] = [];
      if (filter.type) clauses.push(eb('type', '=', filter.type));
      if (filter.state === 'failed') clauses.push(eb('failed_at', 'is not', null));
      if (filter.state === 'processed') clauses.push(eb('processed_at', 'is not', null), eb('failed_at', 'is', null));
      if (filter.state === 'received') clauses.push(eb('processed_at', 'is', null), eb('failed_at', 'is', null));
      if (filter.sessionId) clauses.push(eb('stripe_session_id', '=', filter.sessionId));
      if (sale) clauses.push(eb('stripe_session_id', '=', sale.stripeSessionId));
      if (filter.from) clauses.push(eb('received_at', '>=', japanDayStart(filter.from)));
      if (filter.to) clauses.push(eb('received_at', '<', japanDayAfter(filter.to)));
      return eb.and(clauses);
    });
  const [ids, counted] = await Promise.all([
    events
      .select('id')
      .orderBy('received_at', 'desc')
      .orderBy('id', 'desc')
      .limit(perPage)
      .offset((page - 1) * perPage)
      .execute(),
    events.select((eb) => countAll(eb).as('total')).execute(),
  ]);
  const rows = ids.length ? await em.find(StripeEvent, { id: { $in: ids.map((row) => row.id) } }) : [];
  const byId = new Map(rows.map((row) => [row.id, row]));
  const sessions = [...new Set(rows.flatMap((row) => (row.stripeSessionId ? [row.stripeSessionId] : [])))];
  const sales = sessions.length ? await salePaymentsOfSessions(em, sessions) : [];
  const orderNumbers = new Map(sales.map((sale) => [sale.stripeSessionId, sale.orderNumber]));
  const saleIds = new Map(sales.map((sale) => [sale.stripeSessionId, sale.id]));
  const payments = await inboxPayments(em, sessions);
  return {
    events: ids.map((row) => view(byId.get(row.id) as StripeEvent, orderNumbers, payments, saleIds)),
    total: Number(counted[0]?.total ?? 0),
    page,
    per_page: perPage,
  };
}

/** One event with Stripe's payload, as received. */
export async function stripeEventDetail(orm: Orm, id: string) {
  const em = orm.em.fork() as Em;
  const row = await em.findOne(StripeEvent, { id });
  if (!row) throw new AppError('not_found', STRIPE_EVENT_NOT_FOUND);
  const [sale] = row.stripeSessionId ? await salePaymentsOfSessions(em, [row.stripeSessionId]) : [];
  const orderNumbers = new Map(sale ? [[sale.stripeSessionId, sale.orderNumber]] : []);
  const payments = await inboxPayments(em, row.stripeSessionId ? [row.stripeSessionId] : []);
  const saleIds = new Map(sale ? [[sale.stripeSessionId, sale.id]] : []);
  return { event: { ...view(row, orderNumbers, payments, saleIds), payload: row.payload } };
}

/**
 * An operator re-runs one event now. Idempotent: processing is guarded by the checkout's state, so
 * five replays at once still make one sale and one receipt mail. Audited; the answer is the event
 * as it stands afterwards (a failure is shown on it, not thrown).
 */
export async function replayStripeEvent(
  deps: { orm: Orm; stripe: Stripe; log: Logger; env: { bankTransferDays: number } },
  actor: Actor,
  id: string,
): Promise<{ event: InboxEventView }> {
  const em = deps.orm.em.fork() as Em;
  const row = await em.findOne(StripeEvent, { id });
  if (!row) throw new AppError('not_found', STRIPE_EVENT_NOT_FOUND);
  await transact(em, async (tx) => {
    recordAudit(tx, actor, {
      action: 'payment.replay',
      targetType: 'payment_event',
      targetId: id,
      before: { state: stateOf(row), outcome: row.outcome ?? null, error: row.lastError ?? null },
    });
  });
  try {
    await processStripeEvent(
      { em: deps.orm.em.fork() as Em, stripe: deps.stripe, log: deps.log, bankTransferDays: deps.env.bankTransferDays },
      id,
      { replay: true },
    );
  } catch (error) {
    deps.log.warn('replayed Stripe event failed', { eventId: id, error: String(error) });
  }
  const after = await deps.orm.em.fork().findOneOrFail(StripeEvent, { id });
  return { event: view(after) };
}
