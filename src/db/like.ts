/** An ILIKE pattern matching `text` anywhere, its own `%`, `_` and `\` taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/**
 * How a person's name is searched: 姓 and 名 joined, NFKC (full-width letters and digits and the
 * ideographic space become their plain forms, half-width kana full-width), lower case, no spaces.
 * `nameKeyColumn` is the same in SQL, for a generated column; `nameKey` normalises the query.
 */
export const nameKeyColumn = (...columns: string[]) =>
  `(lower(regexp_replace(normalize(${columns.join(' || ')}, NFKC), '\\s', '', 'g'))) stored`;

export const nameKey = (text: string) => text.normalize('NFKC').toLowerCase().replace(/\s/g, '');

/** An ILIKE/LIKE pattern matching text that starts with `text`. */
export function prefixPattern(text: string): string {
  return `${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/**
 * The WHERE of a search for a person by name or e-mail. Three characters or more: anywhere in 姓名
 * or the e-mail (pg_trgm GIN indexes). Fewer — which no trigram index can serve, e.g. 「佐藤」 — the
 * start of 姓名, of 名 or of the e-mail (btree text_pattern_ops indexes): so 姓 and 名 are still found.
 */
export function personSearch(
  query: string,
  columns: { nameKey: string; firstKey: string; email?: string },
): { sql: string; params: string[] } | null {
  const terms = personSearchTerms(query, columns);
  if (!terms.length) return null;
  return { sql: `(${terms.map(([sql]) => sql).join(' or ')})`, params: terms.map(([, param]) => param) };
}

/** The conditions a person search ORs together: `[sql, pattern]` each (see personSearch). */
export function personSearchTerms(
  query: string,
  columns: { nameKey: string; firstKey: string; email?: string },
): [string, string][] {
  const key = nameKey(query);
  const email = columns.email ? query.trim().toLowerCase() : '';
  const terms: [string, string][] = [];
  if ([...key].length >= 3) {
    terms.push([`${columns.nameKey} like ?`, containsPattern(key)]);
    if (email) terms.push([`${columns.email} ilike ?`, containsPattern(email)]);
  } else {
    if (key) terms.push([`${columns.nameKey} like ?`, prefixPattern(key)], [`${columns.firstKey} like ?`, prefixPattern(key)]);
    if (email) terms.push([`${columns.email} like ?`, prefixPattern(email)]);
  }
  return terms;
}

/**
 * Counts, up to `cap + 1`, the rows of `table` matching a short (prefix) person search and nothing
 * else, without reading the table: each condition walks its btree prefix index, which INCLUDEs the
 * id (an index-only scan), and the union of those capped id lists is counted. Exact below the cap —
 * each branch is complete then — and past the cap whenever any branch reaches it. Null when the
 * search is not a prefix search (the trigram indexes need the table rows).
 */
export function prefixSearchCount(
  table: string,
  query: string,
  columns: { nameKey: string; firstKey: string; email?: string },
  cap: number,
): { sql: string; params: string[] } | null {
  if ([...nameKey(query)].length >= 3) return null;
  const terms = personSearchTerms(query, columns);
  if (!terms.length) return null;
  const branches = terms.map(([sql]) => `(select id from ${table} where ${sql} limit ${cap + 1})`);
  return {
    sql: `select count(*)::int as n from (${branches.join(' union ')}) matched`,
    params: terms.map(([, param]) => param),
  };
}

/** Past this many matches a list says 「10,000件以上」: counting a million rows exactly is what costs. */
export const COUNT_CAP = 10_000;

/** How far a text search counts before it says 「1,000件以上」: narrowing helps more than paging then. */
export const SEARCH_COUNT_CAP = 1_000;
