import type { ChangeFeed } from '../../db/changes.ts';
import { countUpTo, db as kysely } from '../../db/kysely.ts';
import { COUNT_CAP, prefixPattern } from '../../db/like.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { transact } from '../../events/outbox.ts';
import type { SessionUser } from '../../http/context.ts';
import { currentBuyers } from '../accounts/index.ts';
import { recordAudit } from '../audit/index.ts';
import { byMemberOrAddressee, type DocumentSearch, resolveDocumentSearch } from './document-search.ts';

const iso = (at: string | Date) => new Date(at).toISOString();

/** The member as they are now (name and e-mail), or null once the account is gone. */
async function withMembers<T extends { user_id: string | null }>(em: Em, rows: T[], changes?: ChangeFeed) {
  const ids = [...new Set(rows.flatMap((row) => (row.user_id ? [row.user_id] : [])))];
  const buyers = await currentBuyers(em, ids, changes);
  return rows.map((row) => {
    const buyer = row.user_id ? buyers.get(row.user_id) : undefined;
    return {
      ...row,
      user: buyer ? { first_name: buyer.firstName, last_name: buyer.lastName, email: buyer.email } : null,
    };
  });
}

const pageAnswer = (n: number, search: DocumentSearch, page: number, perPage: number) => ({
  total: Math.min(n, COUNT_CAP),
  total_capped: n > COUNT_CAP,
  members_capped: search.membersCapped ?? false,
  page,
  per_page: perPage,
});

/** 御見積書 issued, newest first: by number (from its start), by member (name, e-mail) or by 宛名. */
export async function listQuotations(orm: Orm, q: string | undefined, page: number, perPage: number, changes?: ChangeFeed) {
  const em = orm.em.fork() as Em;
  const search = await resolveDocumentSearch(em, q, 'quotation');
  const found = kysely(em)
    .selectFrom('quotations as d')
    .$if(search.prefix !== undefined, (qb) => qb.where('d.quotation_number', 'like', prefixPattern(search.prefix ?? '')))
    .$if(search.members !== undefined, (qb) => qb.where((eb) => byMemberOrAddressee(eb, search)));
  const counted = await countUpTo(kysely(em), found.select('d.id'), COUNT_CAP);
  const rows = await found
    .select([
      'd.quotation_number',
      'd.issued_at',
      'd.expires_at',
      'd.user_id',
      'd.license_id',
      'd.license_name',
      'd.amount',
      'd.addressee',
    ])
    .orderBy('d.issued_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(perPage)
    .offset((page - 1) * perPage)
    .execute();
  const quotations = rows.map((row) => ({ ...row, issued_at: iso(row.issued_at), expires_at: iso(row.expires_at) }));
  return { quotations: await withMembers(em, quotations, changes), ...pageAnswer(counted, search, page, perPage) };
}

/** 御請求書 issued, newest first: by 請求書番号 or 注文番号 (from its start), by member or by 宛名. */
export async function listInvoices(orm: Orm, q: string | undefined, page: number, perPage: number, changes?: ChangeFeed) {
  const em = orm.em.fork() as Em;
  const search = await resolveDocumentSearch(em, q, 'invoice');
  const found = kysely(em)
    .selectFrom('invoices as d')
    .$if(Boolean(search.prefix), (qb) => qb.where('d.order_number', 'like', prefixPattern(search.prefix ?? '')))
    .$if(search.exact !== undefined, (qb) => qb.where('d.invoice_number', '=', search.exact ?? ''))
    .$if(search.members !== undefined, (qb) => qb.where((eb) => byMemberOrAddressee(eb, search)));
  const counted = await countUpTo(kysely(em), found.select('d.id'), COUNT_CAP);
  const rows = await found
    .select([
      'd.invoice_number',
      'd.order_number',
      'd.issued_at',
      'd.due_at',
      'd.user_id',
      'd.license_name',
      'd.amount',
      'd.addressee',
      'd.downloads',
      'd.last_downloaded_at',
    ])
    .orderBy('d.issued_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(perPage)
    .offset((page - 1) * perPage)
    .execute();
  const invoices = rows.map((row) => ({
    ...row,
    issued_at: iso(row.issued_at),
    due_at: iso(row.due_at),
    last_downloaded_at: iso(row.last_downloaded_at),
  }));
  return { invoices: await withMembers(em, invoices, changes), ...pageAnswer(counted, search, page, perPage) };
}

/** One recorded 御見積書 by its exact number. */
export function findQuotation(orm: Orm, number: string) {
  return kysely(orm.em.fork() as Em)
    .selectFrom('quotations')
    .select(['quotation_number', 'license_name', 'amount', 'addressee', 'issued_at', 'expires_at'])
    .where('quotation_number', '=', number)
    .executeTakeFirst();
}

/** One recorded 御請求書 by its exact number. */
export function findInvoice(orm: Orm, number: string) {
  return kysely(orm.em.fork() as Em)
    .selectFrom('invoices')
    .select(['invoice_number', 'order_number', 'user_id', 'license_name', 'amount', 'addressee', 'due_at', 'issued_at'])
    .where('invoice_number', '=', number)
    .executeTakeFirst();
}

/**
 * An administrator drew a member's 御見積書 or 御請求書 again: audited as a read of a personal document
 * (as a receipt's 控え is), never counted as the member's download.
 */
export async function recordDocumentRead(
  orm: Orm,
  admin: SessionUser,
  document: { kind: 'quotation' | 'invoice'; number: string; addressee: string | null },
) {
  await transact(orm.em as Em, async (tx) => {
    recordAudit(
      tx,
      { id: admin.id, email: admin.email },
      {
        action: `${document.kind}.download`,
        targetType: document.kind,
        targetId: document.number,
        after: { addressee: document.addressee },
      },
    );
  });
}
