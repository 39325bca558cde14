// The query stream: an export's sales read in id ranges (keyset), several at once, with their buyers'
// current details from the accounts module (the purchase-time snapshot once a member is deleted).
import { sql } from 'kysely';
import { countAll, db as kysely } from '../../../db/kysely.ts';
import type { Em } from '../../../db/orm.ts';
import { currentBuyers } from '../../accounts/index.ts';
import { oneOfIds, type SalesFilter, salesFilter } from '../sales-filter.ts';
import type { RecordBatch } from './csv.ts';
import { type BuyerDetails, buyerCells } from './csv.ts';

/** Sales per page of an export (about; see rangesOf), and at most per page. */
const BATCH = 5_000;
const PAGE_LIMIT = 4 * BATCH;
/** Pages of an export read at once, each on its own connection, while the oldest is written. */
const PAGES_IN_FLIGHT = 3;
/** Buyers looked up once per export run; past this many the cache starts again (memory stays bounded). */
const MAX_CACHED_BUYERS = 200_000;

/** Where an export's sales come from: a batch's frozen set, or the sales its filters match now. */
export type ExportSource = { batchId: string } | { filter: SalesFilter };

/** One page of an export's sales, column by column (購入日時 as whole Unix seconds). */
interface SalesPage {
  ids: number[];
  userIds: (string | null)[];
  /** PostgreSQL's hashtext of each member's id: the number BuyersMet finds them by (null: no member). */
  userKeys: (number | null)[];
  licenseNames: string[];
  paidAt: number[];
}

/** Sales ids after `after`, up to and including `upTo`. */
interface IdRange {
  after: number;
  upTo: number;
}

/** The sales an export holds: how many, and their first and last ids. */
export interface Span {
  count: number;
  first: number;
  last: number;
}

/** The span of an export's sales (a batch's frozen ones, or those its filters match now). */
export async function spanOf(em: Em, source: ExportSource): Promise<Span> {
  const span =
    'batchId' in source
      ? await kysely(em)
          .selectFrom('export_sales as e')
          .select((eb) => [countAll(eb).as('count'), eb.fn.min('e.sale_id').as('first'), eb.fn.max('e.sale_id').as('last')])
          .where('e.export_id', '=', source.batchId)
          .executeTakeFirst()
      : await kysely(em)
          .selectFrom('sales as s')
          .select((eb) => [countAll(eb).as('count'), eb.fn.min('s.id').as('first'), eb.fn.max('s.id').as('last')])
          .where(salesFilter({ ...source.filter, exportable: true }))
          .executeTakeFirst();
  return { count: span?.count ?? 0, first: Number(span?.first ?? 0), last: Number(span?.last ?? 0) };
}

/**
 * The span cut into id ranges that each hold about BATCH of its sales (sales ids are dense enough):
 * they can be read side by side, on several connections, and written in order.
 */
function* rangesOf(span: Span): Generator<IdRange> {
  if (!span.count) return;
  const width = Math.max(BATCH, Math.ceil((BATCH * (span.last - span.first + 1)) / span.count));
  for (let after = span.first - 1; after < span.last; after += width) yield { after, upTo: Math.min(after + width, span.last) };
}

/**
 * One page of an export's sales in an id range (at most PAGE_LIMIT), as one JSON value of column
 * arrays: one string to decode per page rather than an object per row.
 */
async function pageOf(em: Em, source: ExportSource, range: IdRange): Promise<SalesPage> {
  const db = kysely(em);
  const page =
    'batchId' in source
      ? db
          .selectFrom('export_sales as e')
          .innerJoin('sales as s', 's.id', 'e.sale_id')
          .select(['s.id', 's.user_id', 's.license_name', 's.paid_at'])
          .where('e.export_id', '=', source.batchId)
          .where('e.sale_id', '>', range.after)
          .where('e.sale_id', '<=', range.upTo)
          .orderBy('e.sale_id')
          .limit(PAGE_LIMIT)
      : db
          .selectFrom('sales as s')
          .select(['s.id', 's.user_id', 's.license_name', 's.paid_at'])
          .where(salesFilter({ ...source.filter, exportable: true }))
          .where('s.id', '>', range.after)
          .where('s.id', '<=', range.upTo)
          .orderBy('s.id')
          .limit(PAGE_LIMIT);
  // 購入日時 as whole Unix seconds, which the encoder writes as Japan time with no string or Date per row.
  const result = await db
    .selectFrom(page.as('p'))
    .select((eb) =>
      sql<string | null>`json_build_array(array_agg(${eb.ref('p.id')}), array_agg(${eb.ref('p.user_id')}),
        array_agg(hashtext(${eb.ref('p.user_id')})), array_agg(${eb.ref('p.license_name')}),
        array_agg(floor(date_part('epoch', ${eb.ref('p.paid_at')}))::int8))::text`.as('page'),
    )
    .executeTakeFirst();
  const [ids, userIds, userKeys, licenseNames, paidAt] = JSON.parse(result?.page ?? '[]') as [
    number[] | null,
    (string | null)[] | null,
    (number | null)[] | null,
    string[] | null,
    number[] | null,
  ];
  const columns = {
    ids: ids ?? [],
    userIds: userIds ?? [],
    userKeys: userKeys ?? [],
    licenseNames: licenseNames ?? [],
    paidAt: paidAt ?? [],
  };
  return ascending(columns.ids) ? columns : sortedPage(columns);
}

function ascending(ids: readonly number[]): boolean {
  for (let i = 1; i < ids.length; i++) if ((ids[i] as number) <= (ids[i - 1] as number)) return false;
  return true;
}

/** The page in sale order (PostgreSQL aggregates its ordered subquery in order; this is only the guarantee). */
function sortedPage(page: SalesPage): SalesPage {
  const order = page.ids.map((_, i) => i).sort((a, b) => (page.ids[a] as number) - (page.ids[b] as number));
  const pick = <T>(values: T[]) => order.map((i) => values[i] as T);
  return {
    ids: pick(page.ids),
    userIds: pick(page.userIds),
    userKeys: pick(page.userKeys),
    licenseNames: pick(page.licenseNames),
    paidAt: pick(page.paidAt),
  };
}

/** The purchase-time snapshots of sales whose member is gone. */
async function snapshotsOf(em: Em, saleIds: number[], groupName: string): Promise<Map<number, string[]>> {
  const rows: (BuyerDetails & { id: number })[] = await kysely(em)
    .selectFrom('sales as s')
    .select([
      's.id',
      's.buyer_email as email',
      's.buyer_last_name as lastName',
      's.buyer_first_name as firstName',
      's.buyer_affiliation as affiliation',
      's.buyer_affiliation_name as affiliationName',
      's.buyer_affiliation_other as affiliationOther',
    ])
    .where((eb) => oneOfIds(eb.ref('s.id'), saleIds))
    .execute();
  return new Map(rows.map((row) => [Number(row.id), buyerCells(row, groupName)]));
}

/** A member this run has met: their id and `person` (null: the account is gone), and the next with the same key. */
interface Met<P> {
  id: string;
  person: P | null;
  next: Met<P> | undefined;
}

/**
 * The members an export run has met, keyed by the page's number (`hashtext` of the id: V8 hashes a
 * number inline, a fresh string not) and compared by id, since two members may share a key.
 */
class MembersMet<P> {
  #byKey = new Map<number, Met<P>>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** The member's person, null when their account is gone, undefined when this run has not met them. */
  get(key: number, id: string): P | null | undefined {
    for (let met = this.#byKey.get(key); met; met = met.next) if (met.id === id) return met.person;
    return undefined;
  }

  set(key: number, id: string, person: P | null): void {
    this.#byKey.set(key, { id, person, next: this.#byKey.get(key) });
    this.#size++;
  }

  clear(): void {
    this.#byKey.clear();
    this.#size = 0;
  }
}

/** A page's people: the members as they are now (met before in this run, or looked up), else the sale's snapshot. */
async function withPeople<P>(
  em: Em,
  page: SalesPage,
  known: MembersMet<P>,
  groupName: string,
  person: (cells: string[], saleId: number) => P,
): Promise<RecordBatch<P>> {
  const { ids, userIds, userKeys } = page;
  const people = new Array<P>(ids.length);
  // Sales whose member this run has not met yet, and sales whose member is gone (null).
  let pending: number[] = [];
  const unknown = new Set<string>();
  for (let i = 0; i < ids.length; i++) {
    const userId = userIds[i] ?? null;
    const known_ = userId === null ? null : known.get(userKeys[i] as number, userId);
    if (known_ === undefined) {
      pending.push(i);
      unknown.add(userId as string);
    } else if (known_ === null) pending.push(i);
    else people[i] = known_;
  }
  if (unknown.size) {
    if (known.size + unknown.size > MAX_CACHED_BUYERS) known.clear();
    const found = await currentBuyers(em, [...unknown]);
    const gone: number[] = [];
    for (const i of pending) {
      const userId = userIds[i] ?? null;
      let known_ = userId === null ? null : known.get(userKeys[i] as number, userId);
      if (known_ === undefined) {
        const buyer = found.get(userId as string);
        known_ = buyer ? person(buyerCells(buyer, groupName), ids[i] as number) : null;
        known.set(userKeys[i] as number, userId as string, known_);
      }
      if (known_ === null) gone.push(i);
      else people[i] = known_;
    }
    pending = gone;
  }
  if (pending.length) {
    const snapshots = await snapshotsOf(
      em,
      pending.map((i) => ids[i] as number),
      groupName,
    );
    for (const i of pending) {
      const cells = snapshots.get(ids[i] as number);
      if (!cells) throw new Error(`sale ${ids[i]} vanished during the export`);
      people[i] = person(cells, ids[i] as number);
    }
  }
  return { ids: page.ids, people, licenseNames: page.licenseNames, paidAt: page.paidAt };
}

/**
 * The export's records, page by page: the member's current details while the account exists, the
 * purchase-time snapshot once it is deleted. Each member is looked up (and made into a `person`, e.g.
 * their CSV cells already written) once per run, however many licences they bought. The next page
 * is already being read (by PostgreSQL, on another connection) while this one is written.
 */
export async function* records<P>(
  em: Em,
  source: ExportSource,
  span: Span,
  groupName: string,
  person: (cells: string[], saleId: number) => P,
): AsyncGenerator<RecordBatch<P>> {
  const known = new MembersMet<P>();
  // Pages, and the members they bring, are read side by side (a member met in two pages at once may
  // be looked up twice, harmlessly).
  const read = async (range: IdRange): Promise<RecordBatch<P> & { range: IdRange }> => ({
    ...(await withPeople(em, await pageOf(em, source, range), known, groupName, person)),
    range,
  });
  const ranges = rangesOf(span);
  const inFlight: Promise<RecordBatch<P> & { range: IdRange }>[] = [];
  const more = () => {
    const range = ranges.next();
    if (range.done) return;
    const reading = read(range.value);
    // A consumer that stops early must not leave a prefetch's failure unhandled.
    reading.catch(() => undefined);
    inFlight.push(reading);
  };
  for (let i = 0; i < PAGES_IN_FLIGHT; i++) more();
  for (let reading = inFlight.shift(); reading; reading = inFlight.shift()) {
    more();
    let batch = await reading;
    if (batch.ids.length) yield batch;
    // A crowded range: the rest of it, in order, before the next range.
    while (batch.ids.length === PAGE_LIMIT) {
      batch = await read({ after: batch.ids.at(-1) as number, upTo: batch.range.upTo });
      if (batch.ids.length) yield batch;
    }
  }
}
