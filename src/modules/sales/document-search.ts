import { type Expression, type SqlBool, sql } from 'kysely';
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

/** `q` as a number of that kind, else as a member search (at most MEMBER_MATCH_CAP members). */
export async function resolveDocumentSearch(
  em: Em,
  q: string | undefined,
  kind: 'quotation' | 'invoice',
): Promise<DocumentSearch> {
  if (!q) return {};
  const number = kind === 'quotation' ? numberPrefix(q, 'QT') : invoiceNumberSearch(q);
  if (number !== null) return typeof number === 'string' ? { prefix: number } : number;
  const found = await membersMatching(em, q);
  return { members: found.ids, membersCapped: found.capped };
}

/** `ref` is one of the members' ids: one parameter however many. */
export const oneOfMembers = (ref: Expression<string | null>, ids: readonly string[]) =>
  sql<SqlBool>`${ref} = any(string_to_array(${ids.join(',')}, ','))`;
