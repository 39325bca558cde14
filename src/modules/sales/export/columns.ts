import { JST_OFFSET_SECONDS } from '../../../lib/japan-time.ts';

export const EXPORT_HEADER = ['メールアドレス', '姓', '名', '言語', 'グループ', '所属', '所属名', 'ライセンス名', '購入日時'];
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

export const DATE_LINE_BYTES = 21;

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

/** No string and no Date per row (the civil date is H. Hinnant's days-to-civil algorithm). */
export function writeJstLine(chunk: Buffer, at: number, seconds: number): number {
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

export function jstCell(seconds: number): string {
  const line = Buffer.allocUnsafe(DATE_LINE_BYTES);
  writeJstLine(line, 0, seconds);
  return line.toString('latin1', 0, DATE_LINE_BYTES - 2);
}

export interface RecordBatch<P> {
  ids: number[];
  people: P[];
  licenseNames: string[];
  paidAt: number[];
}
