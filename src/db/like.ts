import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';

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

/** Past this many matches a list says 「10,000件以上」: counting a million rows exactly is what costs. */
export const COUNT_CAP = 10_000;

/** How far a text search counts before it says 「1,000件以上」: narrowing helps more than paging then. */
export const SEARCH_COUNT_CAP = 1_000;

/**
 * 異体字 folded to the form most people type, for name search (docs/decisions/0032-kana-and-name-folding.md).
 * Small on purpose: the variants members register under (戸籍 forms) that a colleague searching for
 * them types in the common form. Extending it needs a migration that redefines `shop_search_fold` with
 * the same table and rewrites the users' `search_key` (the migration's comment says how).
 */
export const NAME_VARIANTS: Readonly<Record<string, string>> = {
  髙: '高',
  﨑: '崎',
  嵜: '崎',
  德: '徳',
  邊: '辺',
  邉: '辺',
  齋: '斎',
  齊: '斎',
  斉: '斎',
  澤: '沢',
  濱: '浜',
  濵: '浜',
  廣: '広',
  國: '国',
  櫻: '桜',
  眞: '真',
  惠: '恵',
  榮: '栄',
  冨: '富',
  嶋: '島',
  嶌: '島',
  槇: '槙',
  龍: '竜',
  峯: '峰',
  曾: '曽',
  條: '条',
  瀨: '瀬',
  淵: '渕',
  實: '実',
  壽: '寿',
  彌: '弥',
  𠮷: '吉',
};

/** ぁ..ゖ and ゝゞ as katakana (U+3041–U+3096 sit 0x60 below U+30A1–U+30F6). */
const HIRAGANA_FROM = `${String.fromCodePoint(...Array.from({ length: 0x56 }, (_, i) => 0x3041 + i))}ゝゞ`;
const HIRAGANA_TO = `${String.fromCodePoint(...Array.from({ length: 0x56 }, (_, i) => 0x30a1 + i))}ヽヾ`;

/** The two strings of SQL `translate(text, FOLD_FROM, FOLD_TO)` that `searchKey` applies (one code point each). */
export const FOLD_FROM = HIRAGANA_FROM + Object.keys(NAME_VARIANTS).join('');
const FOLD_TO = HIRAGANA_TO + Object.values(NAME_VARIANTS).join('');

const FOLD_TARGETS = [...FOLD_TO];
const FOLDS = new Map<string, string>([...FOLD_FROM].map((char, i) => [char, FOLD_TARGETS[i] as string]));

/**
 * A member's name or フリガナ as the users' search compares it: `nameKey` (NFKC — half-width kana
 * become full-width —, lower case, no spaces), then hiragana as katakana and the 異体字 of
 * NAME_VARIANTS in their common form. The SQL function `shop_search_fold` (migration
 * 20261126030000) does exactly this to the stored names; a test holds the two together.
 */
export function searchKey(text: string): string {
  let out = '';
  for (const char of nameKey(text)) out += FOLDS.get(char) ?? char;
  return out;
}

/**
 * The users' search by name or フリガナ: `key` is their `search_key` (姓名 and セイメイ, each folded by
 * `searchKey`, joined by a space that no folded query contains, so a match never spans the two) and
 * `grams` its one- and two-character pieces. Any length matches anywhere — 「田」 finds 山田: three
 * characters or more through the key's pg_trgm index, fewer (which no trigram can serve) through the
 * pieces' GIN index (docs/decisions/0032-kana-and-name-folding.md).
 */
export function memberNameSearch<D, TB extends keyof D>(
  eb: ExpressionBuilder<D, TB>,
  query: string,
  columns: { key: Expression<string | null>; grams: Expression<string[] | null> },
): Expression<SqlBool> | null {
  const key = searchKey(query);
  const length = [...key].length;
  if (length === 0) return null;
  if (length >= 3) return eb(columns.key, 'like', containsPattern(key));
  return eb(columns.grams, '@>', sql<string[]>`array[${key}]::text[]`);
}
