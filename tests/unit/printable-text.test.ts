import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { firstUnprintable, printable } from '../../src/lib/printable-text.ts';

describe('firstUnprintable', () => {
  it('counts positions in characters (code points), a surrogate pair being one', () => {
    expect(firstUnprintable('𠮟𠮟\u200b')).toEqual({ position: 3, codePoint: 0x200b, reason: 'character' });
    expect(firstUnprintable('🙂')).toEqual({ position: 1, codePoint: 0x1f642, reason: 'character' });
  });

  it('counts combining marks per base character: two pass, the third is named; a new base starts again', () => {
    expect(firstUnprintable('e\u0301\u0300a\u0301\u0300')).toBeNull();
    expect(firstUnprintable('e\u0301\u0300\u0301')).toEqual({ position: 4, codePoint: 0x0301, reason: 'marks' });
  });

  it('lets multiline text break lines and hold tabs, and single-line text neither', () => {
    expect(firstUnprintable('一行目\r\n二行目\tタブ', true)).toBeNull();
    expect(firstUnprintable('一行目\n二行目')).toEqual({ position: 4, codePoint: 0x0a, reason: 'character' });
    expect(firstUnprintable('一行目\u2028二行目', true)).toEqual({ position: 4, codePoint: 0x2028, reason: 'character' });
  });

  it('accepts what Japanese forms are typed with', () => {
    for (const text of ['髙橋 﨑山', 'ひらがな カタカナ ｶﾀｶﾅ', '①②㈱№', 'ＡＢＣ１２３', 'ー〜～・「」（）　', 'か\u3099']) {
      expect(firstUnprintable(text), text).toBeNull();
    }
  });
});

describe('printable(label)', () => {
  it('is a valibot check whose message names the field, the position and the code point', () => {
    const schema = v.pipe(v.string(), printable('宛名'), v.trim());
    const result = v.safeParse(schema, '〇〇\u3164病院');
    expect(result.success).toBe(false);
    expect(result.issues?.[0]?.message).toBe('宛名の3文字目に使用できない文字（U+3164）が含まれています。');
    expect(v.parse(schema, ' 〇〇病院 ')).toBe('〇〇病院');
  });
});
