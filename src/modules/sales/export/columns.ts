// The training system's CSV layout (fixed by the seed): its columns, the 購入日時 cell, and a page of
// records on its way from the query stream to the encoder.

/** The columns the seed's training system reads, in its order. */
export const EXPORT_HEADER = ['メールアドレス', '姓', '名', '言語', 'グループ', '所属', '所属名', 'ライセンス名', '購入日時'];
/** The field a column's cell comes from, as the preflight names it (else the column's header). */
export const FIELD_OF_COLUMN = [
  'email',
  'last_name',
  'first_name',
  null,
  'group',
  null,
  'affiliation_name',
  'license_name',
  null,
] as const;

/** 2026-11-22T15:30:00.123 (Japan time) → 2026/11/22 15:30:00, as the training system reads it. */
export const jstCell = (iso: string) => `${iso.slice(0, 4)}/${iso.slice(5, 7)}/${iso.slice(8, 10)} ${iso.slice(11, 19)}`;
/** The last cell of a record, 購入日時, with the line's CRLF: always 21 ASCII bytes, never quoted. */
export const jstLine = (iso: string) => `${jstCell(iso)}\r\n`;
export const DATE_LINE_BYTES = 21;

const SLASH = 0x2f;
const SPACE = 0x20;
const CR = 0x0d;
const LF = 0x0a;

/**
 * jstLine(iso) written into `chunk` at `at` without a string per row: the first 19 characters of the
 * ISO time as Latin-1 bytes, its `-` `-` `T` made `/` `/` ` `, then CRLF. Returns the offset after it.
 */
export function writeJstLine(chunk: Buffer, at: number, iso: string): number {
  if (iso.length < 19) return at + chunk.write(jstLine(iso), at, 'latin1');
  chunk.write(iso, at, 19, 'latin1');
  chunk[at + 4] = SLASH;
  chunk[at + 7] = SLASH;
  chunk[at + 10] = SPACE;
  chunk[at + 19] = CR;
  chunk[at + 20] = LF;
  return at + DATE_LINE_BYTES;
}

/**
 * A page of records: per sale its buyer (as the reader's `person` made it: their cells, or those cells
 * already encoded), licence name and purchase time (Japan time, ISO 8601).
 */
export interface RecordBatch<P> {
  ids: number[];
  people: P[];
  licenseNames: string[];
  paidAt: string[];
}
