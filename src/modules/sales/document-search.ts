import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { containsPattern } from '../../db/like.ts';
import type { Em } from '../../db/orm.ts';
import { membersMatching } from '../accounts/index.ts';

/**
 * What the 見積書・請求書 search was read as: the start of a number (any case and width, hyphens or
 * none), one exact 請求書番号, or the members whose current name or e-mail matches.
 */
export interface DocumentSearch {
  /** `QT-2611-7K`: quotation numbers, or order numbers for invoices, starting so. */
  prefix?: string;
  /** `INV-LS-2611-7K3Q9M-2`: an invoice after the first of its order. */
  exact?: string;
  members?: string[];
  membersCapped?: boolean;
  /** The same words in the printed 宛名 (`〇〇消防局`): who phones is often the organisation. */
  addressee?: string;
}

const compact = (text: string) =>
  text
    .normalize('NFKC')
    .toUpperCase()
    .replace(/[\s\-‐-―ー－]/g, '');

/**
 * `QT-2611-7K3Q9M` or `LS-2611-7K3Q9M` typed from its start: the prefix with its hyphens put back and
 * Crockford's look-alikes read as order numbers read them (O → 0, I/L → 1); null when it cannot be one.
 */
function numberPrefix(text: string, head: 'QT' | 'LS'): string | null {
  const match = new RegExp(`^${head}(\\d{0,4})([0-9A-Z]{0,6})$`).exec(compact(text));
  if (!match) return null;
  const month = match[1] ?? '';
  const random = (match[2] ?? '').replace(/O/g, '0').replace(/[IL]/g, '1');
  if ((random && month.length < 4) || random.includes('U')) return null;
  return `${head}${month ? `-${month}` : ''}${random ? `-${random}` : ''}`;
}

/** An invoice is `INV-<order number>` (`-2`, `-3`… for another 宛名): found by its order number's start, or exactly. */
function invoiceNumberSearch(text: string): DocumentSearch | null {
  const typed = compact(text);
  const rest = typed.startsWith('INV') ? typed.slice(3) : typed;
  if (typed.startsWith('INV') && rest === '') return { prefix: '' };
  // An order number is 12 characters without its hyphens: what follows is the invoice's nth.
  const nth = rest.length > 12 ? /^\d{1,3}$/.exec(rest.slice(12))?.[0] : undefined;
  const order = numberPrefix(nth ? rest.slice(0, 12) : rest, 'LS');
  if (!order) return null;
  return nth ? { exact: `INV-${order}-${nth}` } : { prefix: order };
}

/** `q` as a number of that kind, else as a member (at most MEMBER_MATCH_CAP) or 宛名 search. */
export async function resolveDocumentSearch(
  em: Em,
  q: string | undefined,
  kind: 'quotation' | 'invoice',
): Promise<DocumentSearch> {
  if (!q) return {};
  const number = kind === 'quotation' ? numberPrefix(q, 'QT') : invoiceNumberSearch(q);
  if (number !== null) return typeof number === 'string' ? { prefix: number } : number;
  const found = await membersMatching(em, q);
  return { members: found.ids, membersCapped: found.capped, addressee: q.trim() };
}

/** `ref` is one of the members' ids: one parameter however many. */
const oneOfMembers = (ref: Expression<string | null>, ids: readonly string[]) =>
  sql<SqlBool>`${ref} = any(string_to_array(${ids.join(',')}, ','))`;

/** A member search: the document is one of theirs, or its 宛名 contains the words (pg_trgm index). */
export const byMemberOrAddressee = (
  eb: ExpressionBuilder<{ d: { user_id: string | null; addressee: string | null } }, 'd'>,
  search: DocumentSearch,
) =>
  eb.or([
    oneOfMembers(eb.ref('d.user_id'), search.members ?? []),
    // Any width either side (`１２３` finds `123`), through the index on the same normalize().
    ...(search.addressee
      ? [eb(sql<string>`normalize(${eb.ref('d.addressee')}, NFKC)`, 'ilike', containsPattern(search.addressee.normalize('NFKC')))]
      : []),
  ]);
