import { stringify } from 'csv-stringify/sync';
import iconv from 'iconv-lite';
import { jstStamp } from './japan-time.ts';

/** Japanese Excel's "Shift_JIS" is CP932 (Windows-31J). */
export const CP932 = 'cp932';
const GETA = '〓';

/** So 〜 stays a wave and never becomes `?`. */
const CP932_FORMS: Record<string, string> = {
  '\u301c': '\uff5e', // 〜 WAVE DASH → ～
  '\u2212': '\uff0d', // − MINUS SIGN → －
  '\u2016': '\u2225', // ‖ DOUBLE VERTICAL LINE → ∥
  '\u2014': '\u2015', // — EM DASH → ―
  '\u00a2': '\uffe0', // ¢ → ￠
  '\u00a3': '\uffe1', // £ → ￡
  '\u00ac': '\uffe2', // ¬ → ￢
};
const CP932_FORM_PATTERN = new RegExp(`[${Object.keys(CP932_FORMS).join('')}]`, 'g');

export const toCp932Forms = (text: string) => text.replace(CP932_FORM_PATTERN, (c) => CP932_FORMS[c] ?? c);

const fits = new Map<string, boolean>();
function fitsCp932(char: string): boolean {
  let known = fits.get(char);
  if (known === undefined) {
    known = iconv.decode(iconv.encode(char, CP932), CP932) === char;
    fits.set(char, known);
  }
  return known;
}

export function unmappableIn(text: string): string[] {
  const found: string[] = [];
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII fast path
  if (/^[\x00-\x7f]*$/.test(text)) return found;
  for (const char of toCp932Forms(text)) if (!fitsCp932(char)) found.push(char);
  return found;
}

// A run of characters outside ASCII (UTF-16 units: a surrogate pair stays within its run).
// biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII is what is skipped
const NON_ASCII_RUN = /[^\x00-\x7f]+/g;

/**
 * What CP932 cannot hold becomes 〓, each code point. ASCII is skipped by the regex engine, and each
 * distinct run is checked once per call (a CSV batch repeats its names and labels): no character is
 * kept beyond the call.
 */
export function replaceUnmappable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII fast path
  if (/^[\x00-\x7f]*$/.test(text)) return text;
  const checked = new Map<string, string>();
  return toCp932Forms(text).replace(NON_ASCII_RUN, (run) => {
    let out = checked.get(run);
    if (out === undefined) {
      out = '';
      for (const char of run) out += fitsCp932(char) ? char : GETA;
      checked.set(run, out);
    }
    return out;
  });
}

export function downloadNames(licenseName: string | null, at: Date): { utf8: string; ascii: string } {
  if (!licenseName) return { utf8: 'data.csv', ascii: 'data.csv' };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters never belong in a file name
  const safe = licenseName.replace(/[\\/:*?"<>|\u0000-\u001f\u007f]/g, '_').trim() || 'license';
  const time = jstStamp(at);
  return { utf8: `研修登録_${safe}_${time}.csv`, ascii: `training_${time}.csv` };
}

export function contentDisposition(names: { utf8: string; ascii: string }): string {
  if (names.utf8 === names.ascii) return `attachment; filename="${names.ascii}"`;
  const encoded = encodeURIComponent(names.utf8).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${names.ascii}"; filename*=UTF-8''${encoded}`;
}

/** OWASP "CSV injection": a cell starting with = + - @ (also full-width), tab or CR is written as text. */
const CSV_OPTIONS = { record_delimiter: 'windows', quoted_string: false, escape_formulas: true } as const;

// A cell csv-stringify would change: a quote, comma or line break anywhere, or a formula start.
const NEEDS_CSV_STRINGIFY = /[",\r\n]|^[-=+@\t\uFF1D\uFF0B\uFF0D\uFF20]/;

/** Cells csv-stringify would not change are joined directly: the same bytes without its per-cell machinery. */
export function csvRecord(cells: readonly string[]): string {
  for (let c = 0; c < cells.length; c++) {
    if (NEEDS_CSV_STRINGIFY.test(cells[c] as string)) return stringify([cells as string[]], { ...CSV_OPTIONS, eof: false });
  }
  return cells.join(',');
}

export function csvLines(records: readonly (readonly string[])[]): string {
  let text = '';
  for (const cells of records) text += `${csvRecord(cells)}\r\n`;
  return text;
}

export const csvHeader = (columns: readonly string[], bom: boolean) => stringify([columns as string[]], { ...CSV_OPTIONS, bom });
