// Encoders: the export's records as bytes, UTF-8 with a BOM or CP932 (Shift_JIS), in csv-stringify's
// dialect (lib/csv.ts: comma, CRLF, quotes only where needed, formula cells as text).
import iconv from 'iconv-lite';
import { AppError } from '../../../http/errors.ts';
import { CP932, csvHeader, csvRecord, replaceUnmappable, toCp932Forms, unmappableIn } from '../../../lib/csv.ts';
import { DATE_LINE_BYTES, EXPORT_HEADER, type RecordBatch, writeJstLine } from './columns.ts';

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
