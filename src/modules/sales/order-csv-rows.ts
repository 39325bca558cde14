import { type RawBuilder, sql } from 'kysely';
import { japanDayAfter, japanDayStart, japanTimeText, db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import { currentBuyers } from '../accounts/index.ts';
import { type SalesEb, salesFilter } from './sales-filter.ts';
import type { Period } from './summary.ts';

/**
 * 計上区分 of a 受注CSV row: `sale` — paid in the period, counted there as a sale; `refund` — paid
 * before the period and refunded in it, counted there only for its refund (decision 0044).
 */
export type Booking = 'sale' | 'refund';

export interface OrderRow {
  id: number;
  order_number: string | null;
  ordered: string | null;
  paid: string;
  user_id: string | null;
  buyer_last_name: string;
  buyer_first_name: string;
  buyer_affiliation: number | null;
  buyer_affiliation_name: string;
  buyer_affiliation_other: string | null;
  license_name: string;
  amount: number;
  payment_method: string;
  status: number;
  stripe_payment_intent_id: string | null;
  /** Confirmed in the period, and each of those refunds (its tax is rounded per refund, as the summary's). */
  refunded: number;
  refund_amounts: number[] | null;
  /** The Japan date of the last refund confirmed in the period. */
  refund_day: string | null;
  /** Confirmed by the period's end, whenever: the 状態 (一部返金, 返金済み) as it stood then. */
  refunded_total: number;
}

const BATCH = 5_000;

const SNAPSHOT = [
  's.buyer_last_name',
  's.buyer_first_name',
  's.buyer_affiliation',
  's.buyer_affiliation_name',
  's.buyer_affiliation_other',
] as const;

/** What of the sale was refunded: in the period (each refund, the last date) and by the period's end. */
function refundsOf(start: RawBuilder<string>, end: RawBuilder<string>) {
  return (eb: SalesEb) =>
    eb
      .selectFrom('sale_refunds as r')
      .select((r) => [
        r
          .cast<number>(r.fn.coalesce(r.fn.sum('r.amount').filterWhere('r.refunded_at', '>=', start), sql.lit(0)), 'integer')
          .as('refunded'),
        r.fn.agg<number[] | null>('array_agg', ['r.amount']).filterWhere('r.refunded_at', '>=', start).as('refund_amounts'),
        japanTimeText(r.fn.max('r.refunded_at').filterWhere('r.refunded_at', '>=', start), 'YYYY/MM/DD')
          .$castTo<string | null>()
          .as('refund_day'),
        r.cast<number>(r.fn.coalesce(r.fn.sum('r.amount'), sql.lit(0)), 'integer').as('refunded_total'),
      ])
      .whereRef('r.sale_id', '=', 's.id')
      .where('r.refunded_at', '<', end)
      .as('r');
}

/** The purchase-time copy, read only for a sale whose member is gone: not sent (nor parsed) for the rest. */
const ifGone = <C extends (typeof SNAPSHOT)[number]>(eb: SalesEb, column: C) =>
  eb.case().when('s.user_id', 'is', null).then(eb.ref(column)).end();

/**
 * One keyset batch of `booking`'s rows, oldest payment first, with each sale's refunds joined (one
 * query: the lateral aggregate reads sale_refunds_sale_id_index once per sale of the batch).
 */
function batch(em: Em, period: Period, booking: Booking, afterId: number | null): Promise<OrderRow[]> {
  const start = japanDayStart(period.from);
  const end = japanDayAfter(period.to);
  return (
    kysely(em)
      .selectFrom('sales as s')
      .innerJoinLateral(refundsOf(start, end), (join) => join.onTrue())
      .select((eb) => [
        's.id',
        's.order_number',
        's.user_id',
        ifGone(eb, 's.buyer_last_name').as('buyer_last_name'),
        ifGone(eb, 's.buyer_first_name').as('buyer_first_name'),
        ifGone(eb, 's.buyer_affiliation').as('buyer_affiliation'),
        ifGone(eb, 's.buyer_affiliation_name').as('buyer_affiliation_name'),
        ifGone(eb, 's.buyer_affiliation_other').as('buyer_affiliation_other'),
        's.license_name',
        's.amount',
        's.payment_method',
        's.status',
        's.stripe_payment_intent_id',
        japanTimeText(eb.ref('s.ordered_at')).$castTo<string | null>().as('ordered'),
        japanTimeText(eb.ref('s.paid_at')).as('paid'),
        'r.refunded',
        'r.refund_amounts',
        'r.refund_day',
        'r.refunded_total',
      ])
      .$if(booking === 'sale', (q) => q.where(salesFilter({ paidFrom: period.from, paidTo: period.to })))
      .$if(booking === 'refund', (q) =>
        q
          .where('s.paid_at', '<', start)
          .where('s.id', 'in', (eb) =>
            eb
              .selectFrom('sale_refunds as x')
              .select('x.sale_id')
              .where('x.refunded_at', '>=', start)
              .where('x.refunded_at', '<', end),
          ),
      )
      // After the last row's (paid_at, id), its paid_at read back by id: exact to the microsecond, never sent to Node.
      .$if(afterId !== null, (q) =>
        q.where((eb) =>
          eb(
            eb.refTuple('s.paid_at', 's.id'),
            '>',
            eb.tuple(
              eb
                .selectFrom('sales as k')
                .select('k.paid_at')
                .where('k.id', '=', afterId as number),
              afterId as number,
            ),
          ),
        ),
      )
      .orderBy('s.paid_at')
      .orderBy('s.id')
      .limit(BATCH)
      .execute() as Promise<OrderRow[]>
  );
}

export interface OrderBatch {
  rows: OrderRow[];
  members: Awaited<ReturnType<typeof currentBuyers>>;
}

/**
 * A batch and its members' current details (accounts' index: one query for the batch). A member
 * deleted since the batch was read gets the purchase-time copy its sale now holds (a second query,
 * only then).
 */
async function withMembers(em: Em, rows: Promise<OrderRow[]>): Promise<OrderBatch> {
  const read = await rows;
  const members = await currentBuyers(
    em,
    read.flatMap((row) => (row.user_id ? [row.user_id] : [])),
  );
  const gone = read.filter((row) => row.user_id && !members.has(row.user_id));
  if (gone.length > 0) {
    const copies = await kysely(em)
      .selectFrom('sales as s')
      .select(['s.id', ...SNAPSHOT])
      .where(
        's.id',
        'in',
        gone.map((row) => row.id),
      )
      .execute();
    const byId = new Map(copies.map((copy) => [copy.id, copy]));
    for (const row of gone) Object.assign(row, byId.get(row.id), { user_id: null });
  }
  return { rows: read, members };
}

/**
 * The period's rows of `booking` in batches of BATCH, by a keyset walk over (paid_at, id), each with
 * its members. The next batch is read while this one is written (PostgreSQL and Node on their own
 * cores); never more than two in memory however many rows.
 */
export async function* orderBatches(em: Em, period: Period, booking: Booking): AsyncGenerator<OrderBatch> {
  let pending = withMembers(em, batch(em, period, booking, null));
  for (;;) {
    const current = await pending;
    const last = current.rows[current.rows.length - 1];
    const more = current.rows.length === BATCH && last !== undefined;
    if (more) {
      pending = withMembers(em, batch(em, period, booking, last.id));
      // A download abandoned mid-way leaves this read unawaited: its failure is then nobody's.
      pending.catch(() => undefined);
    }
    if (current.rows.length > 0) yield current;
    if (!more) return;
  }
}
