/**
 * A timestamp as the API writes it (`2026-11-26T03:25:18.548Z`), from a Date or from PostgreSQL's text
 * (`2026-11-26 03:25:18.548123+00`, what MikroORM's type parsers hand over, decision 0035).
 *
 * `new Date(text).toISOString()` gives the same string, but V8 reads PostgreSQL's format through its
 * slow legacy parser: about 3.7 µs a value, some 150 µs of a catalogue page's 40 timestamps
 * (docs/decisions/0037-lean-requests.md). Here the common shapes are read by hand — UTC (`+00`) by
 * rearranging the text, another offset through Date.UTC — and anything else (BC years, `infinity`,
 * more digits) still goes through Date. Fractions beyond milliseconds are cut, as Date cuts them.
 */
const PG_TIMESTAMP = /^([1-9]\d{3})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?([+-])(\d\d)(?::(\d\d))?$/;

export function isoTime(value: Date | string): string {
  if (typeof value !== 'string') return value.toISOString();
  const m = PG_TIMESTAMP.exec(value);
  if (!m) return new Date(value).toISOString();
  const [, year, month, day, hour, minute, second, fraction = '', , offsetHours, offsetMinutes] = m as unknown as string[];
  if (offsetHours === '00' && (offsetMinutes === undefined || offsetMinutes === '00')) {
    return `${year}-${month}-${day}T${hour}:${minute}:${second}.${`${fraction}000`.slice(0, 3)}Z`;
  }
  return new Date(fromMatch(m)).toISOString();
}

/** Milliseconds since the epoch (Date#getTime), read as isoTime reads: for comparing a row's times with now. */
export function epochMs(value: Date | string): number {
  if (typeof value !== 'string') return value.getTime();
  const m = PG_TIMESTAMP.exec(value);
  return m ? fromMatch(m) : new Date(value).getTime();
}

function fromMatch(m: RegExpExecArray): number {
  const [, year, month, day, hour, minute, second, fraction = '', sign, offsetHours, offsetMinutes] = m as unknown as string[];
  const offset = (Number(offsetHours) * 60 + Number(offsetMinutes ?? 0)) * (sign === '-' ? -1 : 1);
  const local = Date.UTC(
    Number(year),
    Number(month) - 1,
    Number(day),
    Number(hour),
    Number(minute),
    Number(second),
    Number(`${fraction}000`.slice(0, 3)),
  );
  return local - offset * 60_000;
}

/** isoTime, or null for no value. */
export const isoTimeOrNull = (value: Date | string | null | undefined): string | null =>
  value === null || value === undefined ? null : isoTime(value);
