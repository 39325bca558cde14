import { MikroORM, UniqueConstraintViolationException } from '@mikro-orm/core';
import { type Expression, type ExpressionBuilder, expressionBuilder, type SqlBool, sql } from 'kysely';
import { type ChangeFeed, cached, tableCache } from '../../db/changes.ts';
import { countAll, type DB, japanDayAfter, japanDayStart, db as kysely, now } from '../../db/kysely.ts';
import { COUNT_CAP, SEARCH_COUNT_CAP } from '../../db/like.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { personSearchWhere } from '../../db/person-search.ts';
import type { Sales } from '../../db/schema.ts';
import type { EventPayload } from '../../events/contracts.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { AppError, validationError } from '../../http/errors.ts';
import { currentBuyers, findBuyer, membersMatching } from '../accounts/index.ts';
import { auditedSaleIds, recordAudit } from '../audit/index.ts';
import { findLicenseForSale } from '../licenses/index.ts';
import { SALE_STATUS_LABEL, Sale, SaleStatus } from './entities/sale.entity.ts';
import { newOrderNumber, parseOrderNumber } from './order-number.ts';
import { recordStatusMove } from './status-moves.ts';

export class SaleNotYetRecorded extends Error {}

/** A new order number drawn this many times at most (a clash is one in a billion a month). */
const ORDER_NUMBER_ATTEMPTS = 5;

const isOrderNumberClash = (error: unknown) =>
  error instanceof UniqueConstraintViolationException && error.message.includes('sales_order_number_unique');

/**
 * CheckoutPaid → exactly one sale, with the buyer's details as they are now, its order number, and
 * SalePaid. The order number is drawn again when it clashes with another sale's.
 */
export async function recordSale(em: Em, paid: EventPayload<'CheckoutPaid'>): Promise<'done' | 'skipped'> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await recordSaleOnce(em, paid);
    } catch (error) {
      if (isOrderNumberClash(error) && attempt < ORDER_NUMBER_ATTEMPTS) continue;
      if (error instanceof UniqueConstraintViolationException && !isOrderNumberClash(error)) return 'skipped';
      throw error;
    }
  }
}

function recordSaleOnce(em: Em, paid: EventPayload<'CheckoutPaid'>): Promise<'done' | 'skipped'> {
  return transact(em, async (tx) => {
    const existing = await tx.findOne(Sale, { checkoutSessionId: paid.checkoutId });
    if (existing) return 'skipped';
    const user = paid.userId ? await findBuyer(tx, paid.userId) : null;
    const license = await findLicenseForSale(tx, paid.licenseId);
    if (!license) throw new Error(`licence ${paid.licenseId} of checkout ${paid.checkoutId} not found`);
    const sale = tx.create(Sale, {
      userId: user?.id ?? null,
      buyerLastName: user?.lastName ?? '',
      buyerFirstName: user?.firstName ?? '',
      buyerEmail: user?.email ?? '',
      buyerAffiliation: user?.affiliation ?? null,
      buyerAffiliationName: user?.affiliationName ?? '',
      buyerAffiliationOther: user?.affiliationOther ?? null,
      licenseId: license.id,
      licenseName: license.name,
      amount: paid.amount,
      currency: paid.currency,
      checkoutSessionId: paid.checkoutId,
      stripeSessionId: paid.stripeSessionId,
      stripePaymentIntentId: paid.paymentIntentId,
      receiptUrl: paid.receiptUrl,
      paidAt: new Date(paid.paidAt),
      orderNumber: newOrderNumber(new Date(paid.paidAt)),
      refundedAt: null,
      status: SaleStatus.AwaitingExport,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    await tx.flush();
    recordEvent(tx, 'SalePaid', { saleId: sale.id });
    return 'done';
  });
}

/** PaymentRefunded → the sale is marked refunded (kept, and left out of exports). */
export async function markRefunded(em: Em, refund: EventPayload<'PaymentRefunded'>): Promise<'done' | 'skipped'> {
  return transact(em, async (tx) => {
    const sale = await tx.findOne(Sale, { checkoutSessionId: refund.checkoutId });
    // The sale is made by the CheckoutPaid job; retry until it has run.
    if (!sale) throw new SaleNotYetRecorded(`no sale yet for checkout ${refund.checkoutId}`);
    if (sale.refundedAt) return 'skipped';
    sale.refundedAt = new Date(refund.refundedAt);
    recordEvent(tx, 'SaleRefunded', { saleId: sale.id });
    return 'done';
  });
}

/** What the API shows of a sale: an entity, or a row read with SALE_VIEW_COLUMNS (timestamps as text). */
export type SaleView = Pick<
  Sale,
  | 'id'
  | 'orderNumber'
  | 'licenseId'
  | 'licenseName'
  | 'amount'
  | 'currency'
  | 'receiptUrl'
  | 'buyerFirstName'
  | 'buyerLastName'
  | 'buyerEmail'
  | 'userId'
  | 'buyerAffiliation'
  | 'buyerAffiliationName'
  | 'buyerAffiliationOther'
> & {
  status: number;
  paidAt: Date | string;
  refundedAt?: Date | string | null;
  refundRequestedAt?: Date | string | null;
  buyerGone?: string | null;
};

/** The list reads these columns straight into SaleView (hydrating entities cost more than the query). */
const SALE_VIEW_COLUMNS = [
  's.id',
  's.order_number as orderNumber',
  's.license_id as licenseId',
  's.license_name as licenseName',
  's.amount',
  's.currency',
  's.status',
  's.paid_at as paidAt',
  's.refunded_at as refundedAt',
  's.refund_requested_at as refundRequestedAt',
  's.receipt_url as receiptUrl',
  's.buyer_first_name as buyerFirstName',
  's.buyer_last_name as buyerLastName',
  's.buyer_email as buyerEmail',
  's.user_id as userId',
  's.buyer_affiliation as buyerAffiliation',
  's.buyer_affiliation_name as buyerAffiliationName',
  's.buyer_affiliation_other as buyerAffiliationOther',
  's.buyer_gone as buyerGone',
] as const;

export function saleDto(sale: SaleView) {
  return {
    id: sale.id,
    order_number: sale.orderNumber ?? null,
    license_id: sale.licenseId,
    license_name: sale.licenseName,
    amount: sale.amount,
    currency: sale.currency,
    status: sale.status,
    status_label: SALE_STATUS_LABEL[sale.status as SaleStatus] ?? '',
    paid_at: new Date(sale.paidAt).toISOString(),
    refunded_at: sale.refundedAt ? new Date(sale.refundedAt).toISOString() : null,
    // A refund asked of Stripe from the back office, not yet confirmed (返金手続き中).
    refund_requested_at: sale.refundRequestedAt && !sale.refundedAt ? new Date(sale.refundRequestedAt).toISOString() : null,
    receipt_url: sale.receiptUrl,
    user: { first_name: sale.buyerFirstName, last_name: sale.buyerLastName, email: sale.buyerEmail },
    user_id: sale.userId ?? null,
    buyer_affiliation: sale.buyerAffiliation,
    buyer_affiliation_name: sale.buyerAffiliationName,
    buyer_affiliation_other: sale.buyerAffiliationOther,
    // Why the buyer's account is gone: `withdrew` (退会), `deleted` (by an administrator), or null.
    buyer_gone: sale.buyerGone ?? null,
    licenseId: sale.licenseId,
  };
}

/**
 * How a member reads a sale's state: what it means for them, never the back office's 出力待ち/処理中
 * (a sale exists only once paid, so every state starts from お支払い済み).
 */
export const MEMBER_SALE_STATE = {
  paid: 'お支払い済み（登録準備中）',
  in_progress: '登録手続き中',
  registered: '登録完了',
  refunded: '返金済み',
} as const;
export type MemberSaleState = keyof typeof MEMBER_SALE_STATE;

export function memberSaleState(sale: Pick<SaleView, 'status' | 'refundedAt'>): MemberSaleState {
  if (sale.refundedAt) return 'refunded';
  if (sale.status === SaleStatus.Registered) return 'registered';
  return sale.status === SaleStatus.InProgress ? 'in_progress' : 'paid';
}

/** A member's purchase history, newest first, with the member-facing state of each sale. */
export async function salesOfUser(orm: Orm, userId: string) {
  const sales = await orm.em.fork().find(Sale, { userId }, { orderBy: { paidAt: 'desc', id: 'desc' } });
  return sales.map((sale) => {
    const state = memberSaleState(sale);
    return { ...saleDto(sale), member_state: state, member_state_label: MEMBER_SALE_STATE[state] };
  });
}

export interface SalesFilter {
  licenseId?: number;
  status?: SaleStatus;
  q?: string;
  paidFrom?: string;
  paidTo?: string;
  /** Only the sales this audit entry moved (the list resolves it into `saleIds`). */
  auditId?: string;
  saleIds?: number[];
  /** Only refunded sales (返金済み); a `status` lists the sales in that state that are not refunded. */
  refunded?: boolean;
  /**
   * The members whose current name or e-mail matches `q` (resolveSearch fills it): `q` then finds
   * their sales, and the snapshot only of sales whose member is gone.
   */
  members?: string[];
}

/** The list's filter with an audit entry's sales in place of its id (404 for an entry that does not exist). */
async function withAuditedSales(em: Em, filter: SalesFilter): Promise<SalesFilter> {
  if (!filter.auditId) return filter;
  const saleIds = await auditedSaleIds(em, filter.auditId);
  if (!saleIds) throw new AppError('not_found', 'この操作履歴は見つかりませんでした。');
  return { ...filter, auditId: undefined, saleIds };
}

/**
 * The filter with what salesFilter cannot look up itself: an audit entry's sales, and the members a
 * name or e-mail search matches as they are now (at most MEMBER_MATCH_CAP; `membersCapped` says when
 * more matched). Every reader of the list's search resolves it, so the list, its counters, status
 * moves and the CSV agree.
 */
export async function resolveSearch(source: Em | Orm, asked: SalesFilter): Promise<SalesFilter & { membersCapped?: boolean }> {
  // Nothing to look up (most lists): no EntityManager is made for it.
  if (!asked.auditId && (!asked.q || parseOrderNumber(asked.q) || asked.members)) return asked;
  const em = source instanceof MikroORM ? (source.em.fork() as Em) : source;
  const filter = await withAuditedSales(em, asked);
  if (!filter.q || parseOrderNumber(filter.q) || filter.members) return filter;
  const found = await membersMatching(em, filter.q);
  return { ...filter, members: found.ids, membersCapped: found.capped };
}

/** A condition on `sales as s`. */
export type SalesEb = ExpressionBuilder<DB & { s: Sales }, 's'>;
export type SalesWhereFilter = SalesFilter & { exportable?: boolean };

/** `ref` is one of `ids`: one parameter however many (an audited move may name 20,000 sales). */
export const oneOfIds = (ref: Expression<number>, ids: readonly number[]) =>
  sql<SqlBool>`${ref} = any(string_to_array(${ids.join(',')}, ',')::bigint[])`;

/**
 * The conditions of the administrators' sales list, of status moves by search, of the counts, the
 * summary and the export, on `sales as s` — none when the filter says nothing. salesFilter ANDs them.
 */
export function salesConditions(eb: SalesEb, filter: SalesWhereFilter): Expression<SqlBool>[] {
  const clauses: Expression<SqlBool>[] = [];
  if (filter.licenseId) clauses.push(eb('s.license_id', '=', filter.licenseId));
  if (filter.status !== undefined) {
    // 出力待ち, 処理中 and 登録済み are the states of sales that stand: a refunded one is 返金済み only.
    clauses.push(eb('s.status', '=', filter.status), eb('s.refunded_at', 'is', null));
  }
  if (filter.refunded) clauses.push(eb('s.refunded_at', 'is not', null));
  if (filter.exportable) {
    // A sale whose refund is under way (返金手続き中) is not sent to the training system either.
    clauses.push(
      eb('s.status', 'in', [SaleStatus.AwaitingExport, SaleStatus.InProgress]),
      eb('s.refunded_at', 'is', null),
      eb('s.refund_requested_at', 'is', null),
    );
  }
  if (filter.saleIds) clauses.push(oneOfIds(eb.ref('s.id'), filter.saleIds));
  // An order number (any case, with or without hyphens) is looked up exactly, through its unique index.
  const orderNumber = filter.q ? parseOrderNumber(filter.q) : null;
  if (orderNumber) clauses.push(eb('s.order_number', '=', orderNumber));
  const search =
    filter.q && !orderNumber
      ? personSearchWhere(eb, filter.q, {
          nameKey: eb.ref('s.buyer_name_key'),
          firstKey: eb.ref('s.buyer_first_key'),
          email: eb.ref('s.buyer_email'),
        })
      : null;
  if (search && filter.members) {
    // The member as they are now (the CSV's name): their sales through sales_user_id_index; the
    // purchase-time snapshot only for sales whose member is gone.
    clauses.push(
      eb.or([
        sql<SqlBool>`${eb.ref('s.user_id')} = any(string_to_array(${filter.members.join(',')}, ','))`,
        eb.and([eb('s.user_id', 'is', null), search]),
      ]),
    );
  } else if (search) {
    // 姓, 名, 「姓 名」, 「姓名」 (any width) or the e-mail.
    clauses.push(search);
  }
  // Dates are Japan dates: a whole day from 00:00 JST.
  if (filter.paidFrom) clauses.push(eb('s.paid_at', '>=', japanDayStart(filter.paidFrom)));
  if (filter.paidTo) clauses.push(eb('s.paid_at', '<', japanDayAfter(filter.paidTo)));
  return clauses;
}

/**
 * The typed filter of the administrators' sales list, of status moves by search, of the counts, the
 * summary and the export: `.where(salesFilter(filter))` on `sales as s` (issue 22: no SQL text).
 */
export function salesFilter(filter: SalesWhereFilter) {
  return (eb: SalesEb): Expression<SqlBool> => eb.and(salesConditions(eb, filter));
}

/** An ExpressionBuilder on `sales as s` outside any query, for conditions built before it. */
const salesEb: SalesEb = expressionBuilder<DB & { s: Sales }, 's'>();

/**
 * salesFilter as one condition, or undefined when the filter says nothing: for the queries that must
 * then have no WHERE at all (the whole list, its counts) rather than `where 1 = 1`.
 */
function salesCondition(filter: SalesWhereFilter): Expression<SqlBool> | undefined {
  const conditions = salesConditions(salesEb, filter);
  return conditions.length ? salesEb.and(conditions) : undefined;
}

const listTotals = (changes: ChangeFeed | undefined) =>
  tableCache<{ n: number } | undefined>(changes, 'sales list totals', ['sales'], { max: 1_000, ttlMs: 10 * 60_000 });

const pageStarts = (changes: ChangeFeed | undefined) =>
  tableCache<number>(changes, 'sales list page starts', ['sales'], { max: 10_000, ttlMs: 10 * 60_000 });

/** The administrators' sales list, newest first, with the total (capped at COUNT_CAP, `total_capped`). */
export async function listSales(orm: Orm, asked: SalesFilter, page: number, perPage: number, feed?: ChangeFeed) {
  const filter = await resolveSearch(orm, asked);
  // An audit entry's sales are a short-lived question: its id list is not worth a cache entry.
  const changes = filter.saleIds ? undefined : feed;
  const cap = filter.q ? SEARCH_COUNT_CAP : COUNT_CAP;
  const question = JSON.stringify(filter);
  const where = salesCondition(filter);
  const em = orm.em.fork() as Em;
  // Counting is most of a list's cost: a total is kept until the sales change (change notices).
  const count = await cached(listTotals(changes), question, () =>
    kysely(em)
      .selectFrom((eb) =>
        eb
          .selectFrom('sales as s')
          .select(sql.lit(1).as('one'))
          .$if(where !== undefined, (q) => q.where(where as Expression<SqlBool>))
          .limit(cap + 1)
          .as('capped'),
      )
      .select((eb) => countAll(eb).as('n'))
      .executeTakeFirst(),
  );
  // The page's ids first — an index-only walk however deep the page — then the rows of those 20. A
  // deeper page's first sale is remembered until the sales change: from there the page is a keyset
  // walk of 20 entries, not of every entry before it.
  const firstOfPage = page > 1 ? pageStarts(changes) : undefined;
  const pageKey = JSON.stringify([question, page, perPage]);
  const start = firstOfPage?.peek(pageKey);
  const since = firstOfPage?.since() ?? 0;
  const sales: SaleView[] = await kysely(em)
    .with('page', (db) => {
      const ids = db
        .selectFrom('sales as s')
        .select(['s.id', 's.paid_at'])
        .$if(where !== undefined, (q) => q.where(where as Expression<SqlBool>))
        .orderBy('s.paid_at', 'desc')
        .orderBy('s.id', 'desc')
        .limit(perPage);
      return start === undefined
        ? ids.offset((page - 1) * perPage)
        : ids.where(
            (eb) =>
              // The keyset: a row comparison, which the builder has no operator for.
              sql<SqlBool>`(${eb.ref('s.paid_at')}, ${eb.ref('s.id')}) <= ${eb
                .selectFrom('sales as f')
                .select(['f.paid_at', 'f.id'])
                .where('f.id', '=', start)}`,
          );
    })
    .selectFrom('page')
    .innerJoin('sales as s', 's.id', 'page.id')
    .select(SALE_VIEW_COLUMNS)
    .orderBy('page.paid_at', 'desc')
    .orderBy('page.id', 'desc')
    .execute();
  const first = sales[0]?.id;
  if (start === undefined && first !== undefined) firstOfPage?.set(pageKey, first, since);
  const n = count?.n ?? 0;
  return {
    sales: await withCurrentBuyers(em, sales),
    total: Math.min(n, cap),
    total_capped: n > cap,
    // The name search reached MEMBER_MATCH_CAP members: the screen asks for a longer name.
    members_capped: filter.membersCapped ?? false,
    page,
    per_page: perPage,
  };
}

/**
 * The list shows each buyer as the member is now — the name the CSV writes and the search finds —
 * and the purchase-time snapshot only when the member is gone (the order detail shows both).
 */
async function withCurrentBuyers(em: Em, sales: SaleView[]) {
  const buyers = await currentBuyers(em, [...new Set(sales.flatMap((sale) => (sale.userId ? [sale.userId] : [])))]);
  return sales.map((sale) => {
    const buyer = sale.userId ? buyers.get(sale.userId) : undefined;
    const dto = saleDto(sale);
    if (!buyer) return dto;
    return { ...dto, user: { first_name: buyer.firstName, last_name: buyer.lastName, email: buyer.email } };
  });
}

/** How many sales of the search are in each state: 出力待ち, 処理中, 登録済み (refunded ones apart). */
export async function salesCounts(orm: Orm, asked: Omit<SalesFilter, 'status'>) {
  const em = orm.em.fork() as Em;
  const where = salesCondition(await resolveSearch(em, asked));
  // `exportable`: not refunded and no refund under way (返金手続き中) — what a CSV would write.
  const refunded = (eb: SalesEb) => eb('s.refunded_at', 'is not', null);
  const exportable = (eb: SalesEb) => eb.and([eb('s.refunded_at', 'is', null), eb('s.refund_requested_at', 'is', null)]);
  const rows = await kysely(em)
    .selectFrom('sales as s')
    .select((eb) => ['s.status', refunded(eb).as('refunded'), exportable(eb).as('exportable'), countAll(eb).as('n')])
    .$if(where !== undefined, (q) => q.where(where as Expression<SqlBool>))
    .groupBy((eb) => ['s.status', refunded(eb), exportable(eb)])
    .execute();
  const counts = { awaiting: 0, in_progress: 0, registered: 0, refunded: 0, export_awaiting: 0, export_in_progress: 0 };
  for (const row of rows) {
    if (row.refunded) counts.refunded += row.n;
    else if (row.status === SaleStatus.AwaitingExport) counts.awaiting += row.n;
    else if (row.status === SaleStatus.InProgress) counts.in_progress += row.n;
    else counts.registered += row.n;
    if (row.exportable && row.status === SaleStatus.AwaitingExport) counts.export_awaiting += row.n;
    if (row.exportable && row.status === SaleStatus.InProgress) counts.export_in_progress += row.n;
  }
  return counts;
}

export interface StatusMove {
  status: typeof SaleStatus.InProgress | typeof SaleStatus.Registered;
  licenseId: number;
  /** Exactly these sales … */
  saleIds?: number[];
  /** … or every sale of the licence matching the list's search. */
  filter?: Omit<SalesFilter, 'licenseId' | 'status'>;
  /** The count the administrator confirmed: if the set differs, nothing moves (409). */
  expectedCount?: number;
}

/** Sets the locked sales `ids` to status `to`. */
async function moveLocked(tx: Em, ids: number[], to: SaleStatus): Promise<Sale[]> {
  if (ids.length === 0) return [];
  // Leaving 処理中 forward or back takes a sale out of its open batch.
  await kysely(tx)
    .updateTable('sales as s')
    .set({ status: to, updated_at: now(), ...(to === SaleStatus.InProgress ? {} : { batch_id: null }) })
    .where((eb) => oneOfIds(eb.ref('s.id'), ids))
    .execute();
  return tx.find(Sale, { id: { $in: ids } }, { orderBy: { id: 'asc' }, refresh: true });
}

/**
 * Moves sales of a licence one step forward (0→1 or 1→2): exactly the chosen ones, or all those the
 * search matches. Refunded sales never move. The rows are locked first, so two identical requests
 * move the sales once; when `expectedCount` differs from what would move, nothing moves (409).
 */
export async function advanceStatus(orm: Orm, actor: { id: string; email: string }, input: StatusMove) {
  const from = input.status === SaleStatus.Registered ? SaleStatus.InProgress : SaleStatus.AwaitingExport;
  return transact(orm.em as Em, async (tx) => {
    const filter = await resolveSearch(tx, { ...input.filter, licenseId: input.licenseId, status: from });
    const chosen = input.saleIds;
    const rows = await kysely(tx)
      .selectFrom('sales as s')
      .select('s.id')
      .where(salesFilter(filter))
      .where('s.refunded_at', 'is', null)
      .$if(chosen !== undefined, (q) => q.where('s.id', 'in', chosen ?? []))
      .orderBy('s.id')
      .forUpdate()
      .execute();
    if (input.expectedCount !== undefined && rows.length !== input.expectedCount) {
      throw countChanged(rows.length, input.expectedCount);
    }
    const ids = rows.map((r) => r.id);
    // The batches these sales leave: one with no 処理中 sale left is finished (its CSV was registered).
    const batches =
      input.status === SaleStatus.Registered && ids.length
        ? await kysely(tx)
            .selectFrom('sales as s')
            .select('s.batch_id')
            .distinct()
            .where((eb) => oneOfIds(eb.ref('s.id'), ids))
            .where('s.batch_id', 'is not', null)
            .$narrowType<{ batch_id: string }>()
            .execute()
        : [];
    const sales = await moveLocked(tx, ids, input.status);
    if (batches.length)
      await closeFinishedBatches(
        tx,
        actor,
        batches.map((b) => b.batch_id),
      );
    if (sales.length) {
      const saleIds = sales.map((s) => s.id);
      await recordStatusMove(tx, { from, to: input.status, actorId: actor.id, saleIds });
      recordAudit(tx, actor, {
        action: 'sale.status',
        targetType: 'license',
        targetId: input.licenseId,
        before: { status: from, sale_ids: saleIds },
        after: { status: input.status, sale_ids: saleIds },
      });
    }
    return sales.map(saleDto);
  });
}

/**
 * Batches whose 処理中 sales all became 登録済み through the list's toolbar are completed as if
 * 「登録済みにする」 had been pressed (completed_at, by whom): the history then offers nothing more.
 */
async function closeFinishedBatches(tx: Em, actor: { email: string }, batchIds: string[]) {
  await kysely(tx)
    .updateTable('exports as e')
    .set({ completed_at: now(), completed_by: actor.email })
    .where('e.id', 'in', batchIds)
    .where((eb) => eb.ref('e.batch'))
    .where('e.completed_at', 'is', null)
    .where('e.state', '=', 'done')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('sales as s')
            .select(sql.lit(1).as('one'))
            .whereRef('s.batch_id', '=', 'e.id')
            .where('s.status', '=', SaleStatus.InProgress),
        ),
      ),
    )
    .execute();
}

/** The set an administrator confirmed is not the set that would move: nothing moved (409 with the actual count). */
export function countChanged(actual: number, expected: number) {
  return new AppError(
    'conflict',
    `対象の売上が${expected.toLocaleString('ja-JP')}件から${actual.toLocaleString('ja-JP')}件に変わったため、更新しませんでした。一覧を確認してからやり直してください。`,
    { details: { count: actual } },
  );
}

/**
 * 差し戻し: each chosen sale one step back (登録済み → 処理中, 処理中 → 出力待ち), with the reason,
 * audited, SaleStatusChanged per step. All or nothing: a sale that cannot go back (出力待ち, refunded
 * or unknown) refuses the whole request.
 */
export async function revertStatus(orm: Orm, actor: { id: string; email: string }, input: { saleIds: number[]; reason: string }) {
  return transact(orm.em as Em, async (tx) => {
    const rows = await kysely(tx)
      .selectFrom('sales')
      .select((eb) => ['id', 'status', eb('refunded_at', 'is not', null).as('refunded'), 'license_id', 'order_number'])
      .where('id', 'in', input.saleIds)
      .orderBy('id')
      .forUpdate()
      .execute();
    const found = new Map(rows.map((r) => [r.id, r]));
    const stuck = input.saleIds.filter((id) => {
      const row = found.get(id);
      return !row || row.refunded || row.status === SaleStatus.AwaitingExport;
    });
    if (stuck.length) {
      throw validationError({
        saleIds: [
          `差し戻せない売上が含まれています（${stuck
            .slice(0, 10)
            .map((id) => found.get(id)?.order_number ?? `売上ID ${id}`)
            .join('、')}）。出力待ち・返金済みの売上は差し戻せません。`,
        ],
      });
    }
    const moved: Sale[] = [];
    const steps = [
      { from: SaleStatus.Registered, to: SaleStatus.InProgress },
      { from: SaleStatus.InProgress, to: SaleStatus.AwaitingExport },
    ] as const;
    for (const { from, to } of steps) {
      const ids = rows.filter((r) => r.status === from).map((r) => r.id);
      if (!ids.length) continue;
      moved.push(...(await moveLocked(tx, ids, to)));
      await recordStatusMove(tx, { from, to, actorId: actor.id, saleIds: ids });
      recordAudit(tx, actor, {
        action: 'sale.revert',
        targetType: 'sales',
        targetId: ids.length === 1 ? String(ids[0]) : `${ids[0]}…(${ids.length})`,
        before: { status: from, sale_ids: ids },
        after: { status: to, sale_ids: ids, reason: input.reason },
      });
    }
    return moved.sort((a, b) => a.id - b.id).map(saleDto);
  });
}

/** The complete page's question: has the webhook made the sale of this checkout yet? */
export async function saleIdForCheckout(em: Em, checkoutId: string): Promise<number | null> {
  return (await saleOfCheckout(em, checkoutId))?.id ?? null;
}

/** The sale of a checkout, once the webhook made it: its id and order number (the thanks page). */
export async function saleOfCheckout(em: Em, checkoutId: string): Promise<{ id: number; orderNumber: string | null } | null> {
  const sale = await em.findOne(Sale, { checkoutSessionId: checkoutId }, { fields: ['id', 'orderNumber'] });
  return sale ? { id: sale.id, orderNumber: sale.orderNumber ?? null } : null;
}

/** A licence a member holds: their latest paid, not refunded sale of it. */
export interface Holding {
  saleId: number;
  licenseId: number;
  orderNumber: string | null;
  paidAt: Date;
}

/**
 * The licences `userId` holds (paid, not refunded), one entry per licence with its latest sale;
 * only `licenseId` when given (POST /api/licenses/stripe's 409).
 */
export async function holdingsOf(em: Em, userId: string, licenseId?: number): Promise<Holding[]> {
  const rows = await kysely(em)
    .selectFrom('sales')
    .distinctOn('license_id')
    .select(['id', 'license_id', 'order_number', 'paid_at'])
    .where('user_id', '=', userId)
    .where('refunded_at', 'is', null)
    .$if(licenseId !== undefined, (q) => q.where('license_id', '=', licenseId as number))
    .orderBy('license_id')
    .orderBy('paid_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((row) => ({
    saleId: row.id,
    licenseId: row.license_id,
    orderNumber: row.order_number,
    paidAt: new Date(row.paid_at),
  }));
}

/** The sale with this order number (typed any way parseOrderNumber reads), for the payments inbox. */
export async function saleOfOrderNumber(em: Em, text: string): Promise<{ id: number; stripeSessionId: string } | null> {
  const orderNumber = parseOrderNumber(text);
  if (!orderNumber) return null;
  const row = await kysely(em)
    .selectFrom('sales')
    .select(['id', 'stripe_session_id'])
    .where('order_number', '=', orderNumber)
    .executeTakeFirst();
  return row ? { id: row.id, stripeSessionId: row.stripe_session_id } : null;
}

/**
 * UserDeleted → the user's sales keep their buyer snapshot and lose the link to the account, noting
 * whether the member left (退会) or an administrator deleted the account (unknown for older events).
 */
export async function forgetUser(em: Em, userId: string, by?: 'member' | 'admin'): Promise<'done' | 'skipped'> {
  const buyerGone = by === 'member' ? 'withdrew' : by === 'admin' ? 'deleted' : null;
  const changed = await em.fork().nativeUpdate(Sale, { userId }, { userId: null, buyerGone, updatedAt: new Date() });
  return changed ? 'done' : 'skipped';
}
