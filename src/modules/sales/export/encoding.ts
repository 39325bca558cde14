import iconv from 'iconv-lite';
import { AppError } from '../../../http/errors.ts';
import { CP932, csvHeader, csvRecord, replaceUnmappable, toCp932Forms, unmappableIn } from '../../../lib/csv.ts';
import { DATE_LINE_BYTES, EXPORT_HEADER, type RecordBatch, writeJstLine } from './columns.ts';

export type ExportEncoding = 'utf-8' | 'shift_jis';

/** Past this many the cache starts again: memory stays bounded. */
const MAX_CACHED_LICENCES = 200_000;

export const exportContentType = (encoding: string) => `text/csv; charset=${encoding === 'shift_jis' ? 'Shift_JIS' : 'UTF-8'}`;

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

export interface CsvEncoder {
  header(): Buffer;
  /** Made once per member and run, and copied for each of their sales. */
  person(cells: readonly string[], saleId: number): Buffer;
  page(batch: RecordBatch<Buffer>): Buffer;
}

/** Each buyer's cells and licence name encoded once per run, their bytes copied for every sale. */
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
