import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/http/errors.ts';
import { toCp932Forms } from '../../src/lib/csv.ts';
import { csvEncoder, EXPORT_HEADER, type ExportEncoding } from '../../src/modules/sales/index.ts';

/**
 * The export's fast path (cells joined directly where csv-stringify would leave them alone, each
 * buyer's and licence's bytes encoded once and copied, 購入日時 written as ASCII into the page) must
 * write byte for byte the file csv-stringify writes of the same records, with the dialect spelled out
 * here rather than taken from the module: comma, CRLF, quotes only where needed, OWASP formula
 * escaping (a leading ' before = + - @ tab CR and their full-width forms), a UTF-8 BOM, and for
 * Shift_JIS the whole text through iconv-lite's CP932 after each cell is put in its CP932 forms and,
 * when asked, what CP932 cannot hold is replaced by 〓.
 */
const DIALECT = { record_delimiter: 'windows', quoted_string: false, escape_formulas: true } as const;

/** 〓 for every character CP932 cannot give back (decided here by a round trip through iconv-lite). */
function withGeta(text: string): string {
  let out = '';
  for (const char of toCp932Forms(text)) out += iconv.decode(iconv.encode(char, 'cp932'), 'cp932') === char ? char : '〓';
  return out;
}
const cp932Fits = (text: string) => withGeta(text) === toCp932Forms(text);

/** Unix seconds → 2026/11/22 15:30:00 in Japan time (UTC+9), by Date rather than the module's arithmetic. */
const jst = (seconds: number) => {
  const iso = new Date((seconds + 9 * 3600) * 1000).toISOString();
  return `${iso.slice(0, 10).replaceAll('-', '/')} ${iso.slice(11, 19)}`;
};
/** The Unix seconds of a Japan-time wall clock reading (2026-11-22T15:30:00). */
const jstSeconds = (local: string) => Date.parse(`${local}+09:00`) / 1000;

interface Sale {
  member: number;
  licence: number;
  /** Unix seconds, whole (as the query stream hands them over). */
  paidAt: number;
}
interface Input {
  /** Each member's cells, メールアドレス to 所属名 (as rows.ts maps a buyer; any text in any column here). */
  members: string[][];
  licences: string[];
  sales: Sale[];
  /** How the sales are cut into pages (the worker writes one chunk per page). */
  pageSizes: number[];
}

/** What csv-stringify writes of the export's records, encoded as a whole. */
function reference(input: Input, encoding: ExportEncoding, replace: boolean): Buffer {
  const cp932 = encoding === 'shift_jis';
  const cell = (text: string) => (!cp932 ? text : replace ? withGeta(text) : toCp932Forms(text));
  const records = input.sales.map((sale) =>
    [...(input.members[sale.member] as string[]), input.licences[sale.licence] as string, jst(sale.paidAt)].map(cell),
  );
  const text = stringify([EXPORT_HEADER, ...records], { ...DIALECT, bom: !cp932 });
  return cp932 ? iconv.encode(text, 'cp932') : Buffer.from(text, 'utf8');
}

/** What the export writes: as build.ts drives the encoder, with each member made once (query.ts). */
function fastPath(input: Input, encoding: ExportEncoding, replace: boolean): Buffer {
  const encoder = csvEncoder(encoding, replace);
  const chunks = [encoder.header()];
  const people = new Map<number, Buffer>();
  let next = 0;
  for (let p = 0; next < input.sales.length; p++) {
    const size = input.pageSizes[p % input.pageSizes.length] as number;
    const page = input.sales.slice(next, next + size);
    const ids = page.map((_, i) => next + i + 1);
    next += size;
    chunks.push(
      encoder.page({
        ids,
        people: page.map((sale, i) => {
          let person = people.get(sale.member);
          if (!person) {
            person = encoder.person(input.members[sale.member] as string[], ids[i] as number);
            people.set(sale.member, person);
          }
          return person;
        }),
        licenseNames: page.map((sale) => input.licences[sale.licence] as string),
        paidAt: page.map((sale) => sale.paidAt),
      }),
    );
  }
  return Buffer.concat(chunks);
}

// Pieces of cells: names, the CSV's special characters, formula starts, CP932's look-alikes and
// characters it cannot hold (😀 𠮷 é € ♥ ¥ NBSP) next to ones it can (① ㈱ № 髙 﨑 ｱ Ⅰ ㍻ ☆).
const PIECES = [
  ...['佐藤', '髙橋', '齋藤', '渡邊', 'さくら', '太郎', 'ｱｲｳｴｵ', '〇〇署', '東京消防庁', '﨑山', 'Ⅰ型', '㍻', '☆'],
  ...['Smith', 'Zoë', 'José', "O'Brien", 'Ångström', 'jp@example.jp', 'a.b+c@example.com'],
  ...['"', '""', ',', ', ', '\r', '\n', '\r\n', '\n\r', ' ', '  ', '\t', ';', "'"],
  ...['=', '+', '-', '@', '＝', '＋', '－', '＠', '=SUM(A1:A9)', '=HYPERLINK("http://x","y")', '-1', '+81 3', '@cmd'],
  ...['〜', '−', '‖', '—', '¢', '£', '¬', '～', '∥'],
  ...['😀', '👨‍👩‍👧', '𠮷', '①', '㈱', '№', 'é', '€', '♥', '¥', '\u00a0', '丂', '〓'],
];
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...PIECES) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 3 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 3 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 3 }) },
);
const text = fc.array(piece, { maxLength: 5 }).map((pieces) => pieces.join(''));
const member = fc.array(text, { minLength: 7, maxLength: 7 });
/** 購入日時 as the query stream hands it over: whole Unix seconds, 1900 to 2100 (leap days and centuries included). */
const paidAt = fc.integer({ min: Date.UTC(1900, 0, 1) / 1000, max: Date.UTC(2100, 11, 31, 23, 59, 59) / 1000 });
const input: fc.Arbitrary<Input> = fc
  .record({
    members: fc.array(member, { minLength: 1, maxLength: 6 }),
    licences: fc.array(text, { minLength: 1, maxLength: 4 }),
    sales: fc.array(fc.record({ member: fc.nat(), licence: fc.nat(), paidAt }), { maxLength: 25 }),
    pageSizes: fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 4 }),
  })
  .map((i) => ({
    ...i,
    sales: i.sales.map((s) => ({ ...s, member: s.member % i.members.length, licence: s.licence % i.licences.length })),
  }));

const RUNS = 500;

describe('the export’s fast CSV path writes what csv-stringify writes', () => {
  it('UTF-8 with a BOM', () => {
    // The property must meet both paths: records csv-stringify writes and records joined directly.
    let quoted = 0;
    let plain = 0;
    fc.assert(
      fc.property(input, (i) => {
        const expected = reference(i, 'utf-8', false);
        expect(fastPath(i, 'utf-8', false).equals(expected)).toBe(true);
        for (const line of expected.toString('utf8').split('\r\n').slice(1, -1)) {
          if (/["']/.test(line)) quoted++;
          else plain++;
        }
      }),
      { numRuns: RUNS },
    );
    expect(quoted).toBeGreaterThan(RUNS);
    expect(plain).toBeGreaterThan(10);
  });

  it('Shift_JIS (CP932) with 〓 for what CP932 cannot hold', () => {
    let replaced = 0;
    fc.assert(
      fc.property(input, (i) => {
        const expected = reference(i, 'shift_jis', true);
        const written = fastPath(i, 'shift_jis', true);
        expect(written.equals(expected)).toBe(true);
        // iconv-lite's own stand-in never appears: every character was CP932 or became 〓.
        expect(iconv.decode(written, 'cp932')).toBe(iconv.decode(expected, 'cp932'));
        if (written.includes(iconv.encode('〓', 'cp932'))) replaced++;
      }),
      { numRuns: RUNS },
    );
    expect(replaced).toBeGreaterThan(RUNS / 4);
  });

  it('Shift_JIS (CP932) without replacement: the same bytes, or refused when a cell cannot be held', () => {
    let refused = 0;
    let written = 0;
    fc.assert(
      fc.property(input, (i) => {
        const cells = i.sales.flatMap((s) => [...(i.members[s.member] as string[]), i.licences[s.licence] as string]);
        if (cells.every(cp932Fits)) {
          written++;
          expect(fastPath(i, 'shift_jis', false).equals(reference(i, 'shift_jis', false))).toBe(true);
        } else {
          refused++;
          expect(() => fastPath(i, 'shift_jis', false)).toThrow(AppError);
        }
      }),
      { numRuns: RUNS },
    );
    expect(refused).toBeGreaterThan(RUNS / 4);
    expect(written).toBeGreaterThan(10);
  });

  it('writes 購入日時 in Japan time across days, leap days, centuries and before 1970', () => {
    const moments = [
      '2026-11-22T15:30:00',
      '2026-11-23T00:00:00',
      '2026-12-31T23:59:59',
      '2000-02-29T08:59:59',
      '2000-02-29T09:00:00',
      '2100-02-28T23:59:59',
      '2100-03-01T00:00:00',
      '1970-01-01T08:59:59',
      '1969-12-31T12:00:01',
    ];
    const i: Input = {
      members: [['a@example.jp', '佐藤', '太郎', '日本語', '研修', '消防', '〇〇署']],
      licences: ['BLS'],
      sales: moments.map((local) => ({ member: 0, licence: 0, paidAt: jstSeconds(local) })),
      pageSizes: [4],
    };
    const written = fastPath(i, 'utf-8', false).toString('utf8').split('\r\n').slice(1, -1);
    expect(written.map((line) => line.split(',').at(-1))).toEqual(
      moments.map((local) => local.replace('T', ' ').replaceAll('-', '/')),
    );
  });

  it('neutralises formula cells as csv-stringify does, in both encodings', () => {
    const member = ['=1+2', '+81', '-1', '日本語', '\r\n改行', '医療機関', '@sum'];
    const i: Input = {
      members: [member],
      licences: ['\tタブ', '＝"全角"'],
      sales: [
        { member: 0, licence: 0, paidAt: jstSeconds('2026-11-22T15:30:00') },
        { member: 0, licence: 1, paidAt: jstSeconds('2026-11-23T00:00:00') },
      ],
      pageSizes: [1],
    };
    const person = `'=1+2,'+81,'-1,日本語,"'\r\n改行",医療機関,'@sum`;
    const lines = `${person},'\tタブ,2026/11/22 15:30:00\r\n${person},"'＝""全角""",2026/11/23 00:00:00\r\n`;
    expect(fastPath(i, 'utf-8', false).toString('utf8')).toBe(`\ufeff${EXPORT_HEADER.join(',')}\r\n${lines}`);
    expect(iconv.decode(fastPath(i, 'shift_jis', true), 'cp932')).toBe(`${EXPORT_HEADER.join(',')}\r\n${lines}`);
    expect(iconv.decode(fastPath(i, 'shift_jis', false), 'cp932')).toBe(`${EXPORT_HEADER.join(',')}\r\n${lines}`);
    // − (MINUS SIGN) becomes CP932's － (FULLWIDTH HYPHEN-MINUS), a formula start: escaped in Shift_JIS only.
    const minus: Input = { ...i, members: [member.with(1, '−5')] };
    expect(fastPath(minus, 'utf-8', false).toString('utf8')).toContain(`'=1+2,−5,'-1`);
    expect(iconv.decode(fastPath(minus, 'shift_jis', true), 'cp932')).toContain(`'=1+2,'－5,'-1`);
  });
});
