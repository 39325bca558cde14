import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';

export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

export const nameKeyColumn = (...columns: string[]) =>
  `(lower(regexp_replace(normalize(${columns.join(' || ')}, NFKC), '\\s', '', 'g'))) stored`;

export const nameKey = (text: string) => text.normalize('NFKC').toLowerCase().replace(/\s/g, '');

export function prefixPattern(text: string): string {
  return `${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/** Counting a million rows exactly is what costs. */
export const COUNT_CAP = 10_000;

export const SEARCH_COUNT_CAP = 1_000;

/** Small on purpose; extending it needs a migration redefining `shop_search_fold` (docs/decisions/0032-kana-and-name-folding.md). */
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

const HIRAGANA_FROM = `${String.fromCodePoint(...Array.from({ length: 0x56 }, (_, i) => 0x3041 + i))}ゝゞ`;
const HIRAGANA_TO = `${String.fromCodePoint(...Array.from({ length: 0x56 }, (_, i) => 0x30a1 + i))}ヽヾ`;

export const FOLD_FROM = HIRAGANA_FROM + Object.keys(NAME_VARIANTS).join('');
const FOLD_TO = HIRAGANA_TO + Object.values(NAME_VARIANTS).join('');

const FOLD_TARGETS = [...FOLD_TO];
const FOLDS = new Map<string, string>([...FOLD_FROM].map((char, i) => [char, FOLD_TARGETS[i] as string]));

/** The SQL function `shop_search_fold` does exactly this to the stored names; a test holds the two together. */
export function searchKey(text: string): string {
  let out = '';
  for (const char of nameKey(text)) out += FOLDS.get(char) ?? char;
  return out;
}

/** Three characters or more through the key's pg_trgm index, fewer through the pieces' GIN index (decision 0032). */
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
