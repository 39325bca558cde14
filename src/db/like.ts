/** An ILIKE pattern matching `text` anywhere, its own `%`, `_` and `\` taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/**
 * How a person's name is searched: 姓 and 名 joined, NFKC (full-width letters and digits and the
 * ideographic space become their plain forms, half-width kana full-width), lower case, no spaces.
 * `nameKeyColumn` is the same in SQL, for a generated column; `nameKey` normalises the query.
 */
export const nameKeyColumn = (last: string, first: string) =>
  `(lower(regexp_replace(normalize(${last} || ${first}, NFKC), '\\s', '', 'g'))) stored`;

export const nameKey = (text: string) => text.normalize('NFKC').toLowerCase().replace(/\s/g, '');
