import * as v from 'valibot';
import { drawable } from './pdf-fonts.ts';

/** A receipt addressed to a blank, or a CSV cell that looks empty, is the harm. */
const NEVER_PRINTED =
  /[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\u115f\u1160\u2800\u3164\uffa0]/u;
const MARK = /\p{M}/u;
/** Japanese needs one (゛ as U+3099), Vietnamese two; 59 stacked accents are a smear over the line. */
const MAX_MARKS_PER_CHARACTER = 2;

export interface Unprintable {
  position: number;
  codePoint: number;
  reason: 'character' | 'marks';
}

/** Also a glyph the receipt font lacks (an empty box). */
export function firstUnprintable(text: string, multiline = false): Unprintable | null {
  let position = 0;
  let marks = 0;
  for (const character of text) {
    position++;
    const codePoint = character.codePointAt(0) as number;
    if (multiline && (codePoint === 0x0a || codePoint === 0x0d || codePoint === 0x09)) {
      marks = 0;
      continue;
    }
    if (NEVER_PRINTED.test(character)) return { position, codePoint, reason: 'character' };
    marks = MARK.test(character) ? marks + 1 : 0;
    if (marks > MAX_MARKS_PER_CHARACTER) return { position, codePoint, reason: 'marks' };
    if (!drawable(codePoint)) return { position, codePoint, reason: 'character' };
  }
  return null;
}

const codePointName = (codePoint: number) => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;

function unprintableMessage(label: string, found: Unprintable): string {
  return found.reason === 'marks'
    ? `${label}の${found.position}文字目に重ねた記号（${codePointName(found.codePoint)}）が多すぎます。濁点やアクセントなどの記号は1文字に${MAX_MARKS_PER_CHARACTER}つまでです。`
    : `${label}の${found.position}文字目に使用できない文字（${codePointName(found.codePoint)}）が含まれています。`;
}

/** Before `trim`, so the position is that of the text as typed. */
export const printable = (label: string, options: { multiline?: boolean } = {}) =>
  v.check<string, (issue: v.CheckIssue<string>) => string>(
    (text) => firstUnprintable(text, options.multiline) === null,
    (issue) => {
      const found = firstUnprintable(issue.input, options.multiline);
      return found ? unprintableMessage(label, found) : `${label}に使用できない文字が含まれています。`;
    },
  );
