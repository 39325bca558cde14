import { type Expression, expressionBuilder, type OrderByItemBuilder, type SqlBool, sql } from 'kysely';
import { type ChangeFeed, cached, tableCache } from '../../db/changes.ts';
import { countAll, japanDayAfter, japanDayStart, db as kysely } from '../../db/kysely.ts';
import { COUNT_CAP, containsPattern, memberNameSearch, SEARCH_COUNT_CAP } from '../../db/like.ts';
import type { Em, Orm } from '../../db/orm.ts';
import type { UsersAsU } from './member-match.ts';
import { userDto } from './user-dto.ts';

export interface UserSearch {
  name?: string;
  email?: string;
  affiliations?: number;
  /** Registered on or after / on or before these JST days. */
  createdFrom?: string;
  createdTo?: string;
  page: number;
  per_page: number;
  sort: string;
}

type OrderColumn =
  | 'u.created_at'
  | 'u.email'
  | 'u.name_key'
  | 'u.kana_sort'
  | 'u.purchase_count'
  | 'u.paid_total'
  | 'u.last_purchase_at';

const USER_ORDERS: Record<string, OrderColumn> = {
  created_at: 'u.created_at',
  email: 'u.email',
  name: 'u.name_key',
  kana: 'u.kana_sort',
  // The purchase figures accounts keeps from sale events (handlers/purchase-figures.ts), each indexed.
  purchases: 'u.purchase_count',
  paid_total: 'u.paid_total',
  last_purchase: 'u.last_purchase_at',
};

/** Members who never bought come last either way (an index per direction: migration 20261128120000). */
export const orderOf = (sort: string) => {
  const column = USER_ORDERS[sort.replace(/^-/, '')] ?? 'u.created_at';
  const desc = sort.startsWith('-');
  const nullsLast = column === 'u.last_purchase_at';
  return {
    column,
    desc,
    modifiers: (ob: OrderByItemBuilder) => {
      const directed = desc ? ob.desc() : ob.asc();
      return nullsLast ? directed.nullsLast() : directed;
    },
  };
};

/** Null when nothing is asked (no `where` at all). */
export function userWhere(
  query: Pick<UserSearch, 'name' | 'email' | 'affiliations' | 'createdFrom' | 'createdTo'>,
): Expression<SqlBool> | null {
  const eb = expressionBuilder<UsersAsU, 'u'>();
  const terms: Expression<SqlBool>[] = [];
  const byName = query.name
    ? memberNameSearch(eb, query.name, { key: eb.ref('u.search_key'), grams: eb.ref('u.search_grams') })
    : null;
  if (byName) terms.push(byName);
  if (query.email) terms.push(eb('u.email', 'ilike', containsPattern(query.email)));
  if (query.affiliations) terms.push(eb('u.affiliation', '=', query.affiliations));
  if (query.createdFrom) terms.push(eb('u.created_at', '>=', japanDayStart(query.createdFrom)));
  if (query.createdTo) terms.push(eb('u.created_at', '<', japanDayAfter(query.createdTo)));
  return terms.length ? eb.and(terms) : null;
}

/** Plain rows: hydrating entities cost more than the query. */
const userTotals = (changes: ChangeFeed | undefined) =>
  tableCache<{ n: number }[]>(changes, 'user list totals', ['users'], { max: 1_000, ttlMs: 10 * 60_000 });

export async function searchUsers(orm: Orm, query: UserSearch, changes?: ChangeFeed) {
  const db = kysely(orm.em.fork() as Em);
  const where = userWhere(query);
  const order = orderOf(query.sort);
  const dir = order.desc ? 'desc' : 'asc';
  const cap = query.name || query.email ? SEARCH_COUNT_CAP : COUNT_CAP;
  const users = () => db.selectFrom('users as u').$call((qb) => (where ? qb.where(where) : qb));
  const countQuery = db
    .selectFrom(
      users()
        .select(sql.lit(1).as('one'))
        .limit(cap + 1)
        .as('capped'),
    )
    .select((eb) => countAll(eb).as('n'));
  const compiled = countQuery.compile();
  // A total is kept until the users change (change notices): counting is most of the list's cost.
  const [count] = await cached(userTotals(changes), JSON.stringify([compiled.sql, compiled.parameters]), () =>
    countQuery.execute(),
  );
  // The page's ids first, from the order's index alone however deep the page.
  const rows = await db
    .with('page', () =>
      users()
        .select('u.id')
        .orderBy(order.column, order.modifiers)
        .orderBy('u.id', dir)
        .limit(query.per_page)
        .offset((query.page - 1) * query.per_page),
    )
    .selectFrom('page')
    .innerJoin('users as u', 'u.id', 'page.id')
    .select([
      'u.id',
      'u.email',
      'u.last_name as lastName',
      'u.first_name as firstName',
      'u.last_name_kana as lastNameKana',
      'u.first_name_kana as firstNameKana',
      'u.role',
      'u.email_verified as emailVerified',
      'u.affiliation',
      'u.affiliation_name as affiliationName',
      'u.affiliation_other as affiliationOther',
      'u.distribution',
      'u.created_at as createdAt',
      'u.updated_at as updatedAt',
      'u.pending_email as pendingEmail',
      'u.two_factor_enabled as twoFactorEnabled',
      'u.last_sign_in_at as lastSignInAt',
      'u.purchase_count as purchaseCount',
      'u.paid_total as paidTotal',
      'u.last_purchase_at as lastPurchaseAt',
    ])
    .orderBy(order.column, order.modifiers)
    .orderBy('u.id', dir)
    .execute();
  const n = count?.n ?? 0;
  return {
    users: rows.map((u) => ({
      ...userDto(u, { pendingEmail: u.pendingEmail ?? null }),
      purchase_count: u.purchaseCount,
      paid_total: Number(u.paidTotal),
      last_purchase_at: u.lastPurchaseAt ? new Date(u.lastPurchaseAt).toISOString() : null,
    })),
    total: Math.min(n, cap),
    total_capped: n > cap,
    page: query.page,
    per_page: query.per_page,
  };
}
