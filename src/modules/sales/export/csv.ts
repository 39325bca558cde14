// The training system's CSV (layout fixed by the seed): its columns, a buyer's cells, the 購入日時 cell
// and the encoder that writes a page of records as bytes.
import iconv from 'iconv-lite';
import { AppError } from '../../../http/errors.ts';
import { CP932, csvHeader, csvRecord, replaceUnmappable, toCp932Forms, unmappableIn } from '../../../lib/csv.ts';
import { JST_OFFSET_SECONDS } from '../../../lib/japan-time.ts';
import { AFFILIATIONS, type Buyer, combinedAffiliationName } from '../../accounts/index.ts';

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

/** The last cell of a record, 購入日時, with the line's CRLF: always 21 ASCII bytes, never quoted. */
const DATE_LINE_BYTES = 21;

const SLASH = 0x2f;
const SPACE = 0x20;
const COLON = 0x3a;
const CR = 0x0d;
const LF = 0x0a;
const ZERO = 0x30;

const twoDigits = (chunk: Buffer, at: number, n: number) => {
  chunk[at] = ZERO + ((n / 10) | 0);
  chunk[at + 1] = ZERO + (n % 10);
};

/**
 * 購入日時 as the training system reads it — `2026/11/22 15:30:00` in Japan time — with the line's
 * CRLF, written into `chunk` at `at` from the sale's Unix seconds, with no string and no Date per row.
 * Returns the offset after it. (The civil date is H. Hinnant's days-to-civil algorithm.)
 */
function writeJstLine(chunk: Buffer, at: number, seconds: number): number {
  const local = seconds + JST_OFFSET_SECONDS;
  const days = Math.floor(local / 86400);
  let rest = local - days * 86400;
  const hours = (rest / 3600) | 0;
  rest -= hours * 3600;
  const minutes = (rest / 60) | 0;
  const secs = rest - minutes * 60;
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  twoDigits(chunk, at, (year / 100) | 0);
  twoDigits(chunk, at + 2, year % 100);
  chunk[at + 4] = SLASH;
  twoDigits(chunk, at + 5, month);
  chunk[at + 7] = SLASH;
  twoDigits(chunk, at + 8, day);
  chunk[at + 10] = SPACE;
  twoDigits(chunk, at + 11, hours);
  chunk[at + 13] = COLON;
  twoDigits(chunk, at + 14, minutes);
  chunk[at + 16] = COLON;
  twoDigits(chunk, at + 17, secs);
  chunk[at + 19] = CR;
  chunk[at + 20] = LF;
  return at + DATE_LINE_BYTES;
}

/** The 購入日時 cell of a sale paid at `seconds` (Unix time): `2026/11/22 15:30:00`, Japan time. */
export function jstCell(seconds: number): string {
  const line = Buffer.allocUnsafe(DATE_LINE_BYTES);
  writeJstLine(line, 0, seconds);
  return line.toString('latin1', 0, DATE_LINE_BYTES - 2);
}

/**
 * A page of records: per sale its buyer (as the reader's `person` made it: their cells, or those cells
 * already encoded), licence name and purchase time (Unix seconds, whole: the CSV shows seconds).
 */
export interface RecordBatch<P> {
  ids: number[];
  people: P[];
  licenseNames: string[];
  paidAt: number[];
}

/** What the CSV shows of a buyer: a current member's details, or a deleted member's purchase-time snapshot. */
export type BuyerDetails = Pick<
  Buyer,
  'email' | 'lastName' | 'firstName' | 'affiliation' | 'affiliationName' | 'affiliationOther'
>;

/** A buyer's cells, メールアドレス to 所属名 (the same for each of their sales). */
export function buyerCells(buyer: BuyerDetails, groupName: string): string[] {
  return [
    buyer.email,
    buyer.lastName,
    buyer.firstName,
    '日本語',
    groupName,
    buyer.affiliation ? (AFFILIATIONS[buyer.affiliation as keyof typeof AFFILIATIONS] ?? '') : '',
    combinedAffiliationName(buyer.affiliation, buyer.affiliationName, buyer.affiliationOther),
  ];
}

export type ExportEncoding = 'utf-8' | 'shift_jis';

/** Licence names encoded once per export run; past this many the cache starts again (memory stays bounded). */
const MAX_CACHED_LICENCES = 200_000;

export const exportContentType = (encoding: string) => `text/csv; charset=${encoding === 'shift_jis' ? 'Shift_JIS' : 'UTF-8'}`;

/**
 * A cell as the file's encoding holds it: UTF-8 as it is; CP932 in its CP932 forms, with 〓 for what
 * CP932 cannot hold when the administrator chose that, or else the export refused.
 */
function cellWriter(cp932: boolean, replace: boolean): (text: string, saleId: number) => string {
  if (!cp932) return (text) => text;
  if (replace) return replaceUnmappable;
  return (text, saleId) => {
    const unmappable = unmappableIn(text);
    if (unmappable.length) {
      throw new AppError(
        'validation',
        `売上ID ${saleId} に Shift_JIS（CP932）で表せない文字「${unmappable.join('')}」があります。UTF-8で作成するか、〓に置き換えて作成してください。`,
      );
    }
    return toCp932Forms(text);
  };
}

/** Writes one export's file as bytes, page by page (one encoder per run: it keeps the licence names it has encoded). */
export interface CsvEncoder {
  /** The header line (after the BOM in UTF-8). */
  header(): Buffer;
  /**
   * A buyer's cells (メールアドレス to 所属名) as the start of a record, comma included, encoded: made
   * once per member and run, and copied for each of their sales.
   */
  person(cells: readonly string[], saleId: number): Buffer;
  /** A page of records (each buyer already made by `person`) as one chunk of the file. */
  page(batch: RecordBatch<Buffer>): Buffer;
}

/**
 * The encoder of an export: records written through csvRecord (cells csv-stringify would leave alone
 * are joined directly, any other record goes through csv-stringify), each buyer's cells and each
 * licence name encoded once per run and their bytes copied for every sale; 購入日時 is ASCII in both
 * encodings and written straight into the page. A Shift_JIS export whose cell CP932 cannot hold throws
 * an AppError (validation) unless `replaceUnmappable` asks for 〓.
 */
export function csvEncoder(encoding: ExportEncoding, replaceUnmappable: boolean): CsvEncoder {
  const cp932 = encoding === 'shift_jis';
  const encode = (text: string) => (cp932 ? iconv.encode(text, CP932) : Buffer.from(text, 'utf8'));
  const cell = cellWriter(cp932, replaceUnmappable);
  const licences = new Map<string, Buffer>();
  return {
    header: () => encode(csvHeader(EXPORT_HEADER, !cp932)),
    person: (cells, saleId) => encode(`${csvRecord(cells.map((text) => cell(text, saleId)))},`),
    page(batch) {
      const rows = batch.ids.length;
      const names = new Array<Buffer>(rows);
      let size = rows * DATE_LINE_BYTES;
      for (let i = 0; i < rows; i++) {
        const name = batch.licenseNames[i] as string;
        let licence = licences.get(name);
        if (licence === undefined) {
          if (licences.size >= MAX_CACHED_LICENCES) licences.clear();
          licence = encode(`${csvRecord([cell(name, batch.ids[i] as number)])},`);
          licences.set(name, licence);
        }
        names[i] = licence;
        size += (batch.people[i] as Buffer).length + licence.length;
      }
      const chunk = Buffer.allocUnsafe(size);
      let at = 0;
      for (let i = 0; i < rows; i++) {
        const person = batch.people[i] as Buffer;
        const licence = names[i] as Buffer;
        // Uint8Array#set: the copy without Buffer#copy's argument checks (two short copies per row).
        chunk.set(person, at);
        at += person.length;
        chunk.set(licence, at);
        at += licence.length;
        at = writeJstLine(chunk, at, batch.paidAt[i] as number);
      }
      return chunk;
    },
  };
}
