import { type Expression, expressionBuilder, type SqlBool } from 'kysely';
import { type DB, db as kysely } from '../../db/kysely.ts';
import { containsPattern, memberNameSearch, nameKey, prefixPattern } from '../../db/like.ts';
import type { Em } from '../../db/orm.ts';

/** The users table as `users as u`, for conditions built before their query. */
export type UsersAsU = { u: DB['users'] };

/**
 * How many members a search of another list (the sales list's 氏名・メールアドレス) is narrowed to:
 * past this, the search says so and asks for more characters (a name of one character can match
 * tens of thousands of members, and their ids travel as one parameter).
 */
const MEMBER_MATCH_CAP = 1_000;

/**
 * The members whose current name or フリガナ (the users' own search: any width, hiragana or katakana,
 * 異体字 folded, any length anywhere — db/like.ts memberNameSearch) or current e-mail matches `query`:
 * at most `cap` ids, and whether there were more. Other modules search "by the member as they are
 * now" with these ids (the sales list finds a renamed member by the new name).
 */
export async function membersMatching(
  em: Em,
  query: string,
  cap = MEMBER_MATCH_CAP,
): Promise<{ ids: string[]; capped: boolean }> {
  const eb = expressionBuilder<UsersAsU, 'u'>();
  const terms: Expression<SqlBool>[] = [];
  const byName = memberNameSearch(eb, query, { key: eb.ref('u.search_key'), grams: eb.ref('u.search_grams') });
  if (byName) terms.push(byName);
  const email = query.trim().toLowerCase();
  if (email) {
    // Three characters or more anywhere (pg_trgm index), fewer from the start (text_pattern_ops index).
    terms.push(
      [...nameKey(email)].length >= 3
        ? eb('u.email', 'ilike', containsPattern(email))
        : eb('u.email', 'like', prefixPattern(email)),
    );
  }
  if (!terms.length) return { ids: [], capped: false };
  const rows = await kysely(em)
    .selectFrom('users as u')
    .select('u.id')
    .where(eb.or(terms))
    .limit(cap + 1)
    .execute();
  return { ids: rows.slice(0, cap).map((row) => row.id), capped: rows.length > cap };
}
