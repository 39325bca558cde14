import { containsPattern, memberNameSearch, nameKey, prefixPattern } from '../../db/like.ts';
import type { Em } from '../../db/orm.ts';

/**
 * How many members a search of another list (the sales list's 氏名・メールアドレス) is narrowed to:
 * past this, the search says so and asks for more characters (a name of one character can match
 * tens of thousands of members, and their ids travel as one parameter).
 */
export const MEMBER_MATCH_CAP = 1_000;

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
  const clauses: string[] = [];
  const params: unknown[] = [];
  const byName = memberNameSearch(query, { key: 'u.search_key', grams: 'u.search_grams' });
  if (byName) {
    clauses.push(byName.sql);
    params.push(...byName.params);
  }
  const email = query.trim().toLowerCase();
  if (email) {
    // Three characters or more anywhere (pg_trgm index), fewer from the start (text_pattern_ops index).
    if ([...nameKey(email)].length >= 3) {
      clauses.push('u.email ilike ?');
      params.push(containsPattern(email));
    } else {
      clauses.push('u.email like ?');
      params.push(prefixPattern(email));
    }
  }
  if (!clauses.length) return { ids: [], capped: false };
  const rows = await em.execute<{ id: string }[]>(
    `select u.id from users u where ${clauses.map((c) => `(${c})`).join(' or ')} limit ${cap + 1}`,
    params,
  );
  return { ids: rows.slice(0, cap).map((row) => row.id), capped: rows.length > cap };
}
