import { MikroORM } from '@mikro-orm/core';
import { type Expression, type ExpressionBuilder, expressionBuilder, type SqlBool, sql } from 'kysely';
import { type DB, japanDayAfter, japanDayStart } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { personSearchWhere } from '../../db/person-search.ts';
import type { Sales } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { membersMatching } from '../accounts/index.ts';
import { auditedSaleIds } from '../audit/index.ts';
import { SaleStatus } from './entities/sale.entity.ts';

export interface SalesFilter {
  licenseId?: number;
  status?: SaleStatus;
  q?: string;
  paidFrom?: string;
  paidTo?: string;
  /** Only the sales this audit entry moved (the list resolves it into `saleIds`). */
  auditId?: string;
  saleIds?: number[];
  /** お支払い方法: card, konbini or bank_transfer. */
  paymentMethod?: string;
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

/** The conditions of every reader of the list's search on `sales as s`: none when the filter says nothing. */
function salesConditions(eb: SalesEb, filter: SalesWhereFilter): Expression<SqlBool>[] {
  const clauses: Expression<SqlBool>[] = [];
  if (filter.licenseId) clauses.push(eb('s.license_id', '=', filter.licenseId));
  if (filter.status !== undefined) {
    // 出力待ち, 処理中 and 登録済み are the states of sales that stand: a refunded one is 返金済み only.
    clauses.push(eb('s.status', '=', filter.status), eb('s.refunded_at', 'is', null));
  }
  if (filter.refunded) clauses.push(eb('s.refunded_at', 'is not', null));
  if (filter.paymentMethod) clauses.push(eb('s.payment_method', '=', filter.paymentMethod));
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

/** salesConditions ANDed, for `.where(salesFilter(filter))` on `sales as s`. */
export function salesFilter(filter: SalesWhereFilter) {
  return (eb: SalesEb): Expression<SqlBool> => eb.and(salesConditions(eb, filter));
}

/** An ExpressionBuilder on `sales as s` outside any query, for conditions built before it. */
const salesEb: SalesEb = expressionBuilder<DB & { s: Sales }, 's'>();

/**
 * salesFilter as one condition, or undefined when the filter says nothing: for the queries that must
 * then have no WHERE at all (the whole list, its counts) rather than `where 1 = 1`.
 */
export function salesCondition(filter: SalesWhereFilter): Expression<SqlBool> | undefined {
  const conditions = salesConditions(salesEb, filter);
  return conditions.length ? salesEb.and(conditions) : undefined;
}

/**
 * What a person typed, read as an order number: any case and width, hyphens, spaces or none, and
 * Crockford's look-alikes (O → 0, I/L → 1). Null when it cannot be one.
 */
export function parseOrderNumber(text: string): string | null {
  const compact = text
    .normalize('NFKC')
    .toUpperCase()
    .replace(/[\s\-‐-―ー－]/g, '');
  if (!/^LS\d{4}[0-9A-Z]{6}$/.test(compact)) return null;
  const random = compact.slice(6).replace(/O/g, '0').replace(/[IL]/g, '1');
  if (/U/.test(random)) return null;
  return `${compact.slice(0, 2)}-${compact.slice(2, 6)}-${random}`;
}
