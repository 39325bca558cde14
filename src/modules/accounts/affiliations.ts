/** Affiliation codes of the seed (§1, §9). 6 is "other", with its own free text. */
export const AFFILIATIONS = {
  1: '自衛隊',
  2: '警察関係',
  3: '海上保安庁',
  4: '消防・救急',
  5: '医療機関',
  6: 'その他',
} as const;

export const AFFILIATION_OTHER = 6;

/** The seed's single-string form: for "other", the other-text in full-width brackets before the name. */
export function combinedAffiliationName(code: number | null, name: string, other: string | null): string {
  return code === AFFILIATION_OTHER && other ? `（${other}）${name}` : name;
}
