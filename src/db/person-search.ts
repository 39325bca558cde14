import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import { containsPattern, nameKey, prefixPattern } from './like.ts';

/**
 * A search for a person by name or e-mail, as a typed condition: three characters or more — anywhere in
 * 姓名 or the e-mail (pg_trgm GIN indexes); fewer — the start of 姓名, of 名 or of the e-mail (btree
 * text_pattern_ops indexes). `columns` name the table's generated name keys and its e-mail. Null when
 * the query says nothing.
 */
export function personSearchWhere<D, TB extends keyof D>(
  eb: ExpressionBuilder<D, TB>,
  query: string,
  columns: { nameKey: Expression<string | null>; firstKey: Expression<string | null>; email?: Expression<string> },
): Expression<SqlBool> | null {
  const key = nameKey(query);
  const email = columns.email ? query.trim().toLowerCase() : '';
  const terms: Expression<SqlBool>[] = [];
  if ([...key].length >= 3) {
    terms.push(eb(columns.nameKey, 'like', containsPattern(key)));
    if (email && columns.email) terms.push(eb(columns.email, 'ilike', containsPattern(email)));
  } else {
    if (key) terms.push(eb(columns.nameKey, 'like', prefixPattern(key)), eb(columns.firstKey, 'like', prefixPattern(key)));
    if (email && columns.email) terms.push(eb(columns.email, 'like', prefixPattern(email)));
  }
  return terms.length ? eb.or(terms) : null;
}
