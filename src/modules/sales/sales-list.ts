import { type Expression, type SqlBool, sql } from 'kysely';
import { type ChangeFeed, cached, tableCache } from '../../db/changes.ts';
import { countAll, db as kysely } from '../../db/kysely.ts';
import { COUNT_CAP, SEARCH_COUNT_CAP } from '../../db/like.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { currentBuyers } from '../accounts/index.ts';
import { SaleStatus } from './entities/sale.entity.ts';
import { type SaleView, saleDto } from './record-sale.ts';
import { resolveSearch, type SalesEb, type SalesFilter, salesCondition } from './sales-filter.ts';

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
  's.refunded_amount as refundedAmount',
  's.payment_method as paymentMethod',
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
    sales: await withCurrentBuyers(em, sales, feed),
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
async function withCurrentBuyers(em: Em, sales: SaleView[], changes: ChangeFeed | undefined) {
  const buyers = await currentBuyers(em, [...new Set(sales.flatMap((sale) => (sale.userId ? [sale.userId] : [])))], changes);
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
