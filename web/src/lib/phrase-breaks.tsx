import { Fragment } from 'react';

/**
 * A long compound name (「外傷初期対応トレーニングライセンス」) may wrap only where its words meet: between
 * kanji and katakana and before 「ライセンス」, never inside a katakana word (with `.phrase-name`'s keep-all).
 */
const WORD_BOUNDARY =
  /(?<=[\p{Script=Han}々])(?=[\p{Script=Katakana}ー])|(?<=[\p{Script=Katakana}ー])(?=[\p{Script=Han}])|(?<=.)(?=ライセンス)|(?<=[\p{Script=Katakana}ー])(?=トレーニング)/u;

export function splitPhrases(name: string): string[] {
  return name.split(WORD_BOUNDARY).filter((part) => part !== '');
}

export function PhraseBreaks({ text }: { text: string }) {
  const parts = splitPhrases(text);
  return (
    <>
      {parts.map((part, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: pieces of one text, in order
        <Fragment key={index}>
          {index > 0 ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </>
  );
}
