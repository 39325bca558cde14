/**
 * フリガナ as the shop stores it: 全角カタカナ. What members type is normalised first — half-width
 * katakana (ﾔﾏﾀﾞ) and hiragana (やまだ) become full-width katakana, the dashes input methods give for
 * a long vowel become ー, middle dots ・ — and then checked: katakana, ー, ・ and single spaces only.
 */
export function normaliseKana(text: string): string {
  return (
    text
      // NFKC: ﾔﾏﾀﾞ → ヤマダ, the ideographic space → a space, ･ → ・
      .normalize('NFKC')
      .replace(/[\u3041-\u3096\u309d\u309e]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0x60))
      .replace(/[-‐‑‒–—―−~〜]/g, 'ー')
      .replace(/[·•‧]/g, '・')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** 全角カタカナ (ァ..ヺ), ・, ー, ヽ, ヾ and spaces between words. */
export const KANA = /^[\u30a1-\u30fe]+(?: [\u30a1-\u30fe]+)*$/;

export const KANA_MESSAGE = (label: string) => `${label}は全角カタカナで入力してください。`;
