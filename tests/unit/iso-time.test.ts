import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { epochMs, isoTime, isoTimeOrNull } from '../../src/lib/iso-time.ts';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A timestamp as PostgreSQL writes a timestamptz in text: fraction trimmed of zeros, offset ±HH[:MM]. */
const pgText = fc
  .record({
    at: fc.date({ min: new Date('1000-01-01T00:00:00Z'), max: new Date('9998-12-31T00:00:00Z'), noInvalidDate: true }),
    micros: fc.integer({ min: 0, max: 999 }),
    offsetMinutes: fc.constantFrom(0, 540, -300, 330, 345, -570, 60),
  })
  .map(({ at, micros, offsetMinutes }) => {
    const local = new Date(at.getTime() + offsetMinutes * 60_000);
    const fraction = `${pad(local.getUTCMilliseconds(), 3)}${pad(micros, 3)}`.replace(/0+$/, '');
    const sign = offsetMinutes < 0 ? '-' : '+';
    const abs = Math.abs(offsetMinutes);
    const offset = `${sign}${pad(Math.floor(abs / 60))}${abs % 60 ? `:${pad(abs % 60)}` : ''}`;
    return (
      `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())} ` +
      `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}` +
      `${fraction ? `.${fraction}` : ''}${offset}`
    );
  });

describe('isoTime', () => {
  it('writes what new Date(text).toISOString() writes, for any timestamp PostgreSQL sends in any offset', () => {
    fc.assert(
      fc.property(pgText, (text) => {
        expect(isoTime(text)).toBe(new Date(text).toISOString());
        expect(epochMs(text)).toBe(new Date(text).getTime());
      }),
      { numRuns: 5_000 },
    );
  });

  it('reads the usual shapes and leaves the rest to Date', () => {
    expect(isoTime('2026-11-26 03:25:18.548123+00')).toBe('2026-11-26T03:25:18.548Z');
    expect(isoTime('2026-11-26 03:25:18+00')).toBe('2026-11-26T03:25:18.000Z');
    expect(isoTime('2026-11-26 12:25:18.5+09')).toBe('2026-11-26T03:25:18.500Z');
    expect(isoTime('2026-11-26T03:25:18.548Z')).toBe('2026-11-26T03:25:18.548Z');
    expect(isoTime(new Date('2026-11-26T03:25:18.548Z'))).toBe('2026-11-26T03:25:18.548Z');
    expect(() => isoTime('infinity')).toThrow(RangeError);
    expect(isoTime('0050-03-01 00:00:00+00')).toBe(new Date('0050-03-01 00:00:00+00').toISOString());
    expect(isoTimeOrNull(null)).toBeNull();
    expect(isoTimeOrNull('2026-01-01 00:00:00+00')).toBe('2026-01-01T00:00:00.000Z');
  });
});
