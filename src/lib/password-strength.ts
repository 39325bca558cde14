/** One rule for the server and the SPA's meter (docs/decisions/0029-asvs-hardening.md); loaded on first use: half a megabyte. */
export const MIN_PASSWORD_SCORE = 2;

export interface PasswordOwnerDetails {
  email?: unknown;
  lastName?: unknown;
  firstName?: unknown;
  lastNameKana?: unknown;
  firstNameKana?: unknown;
}

export interface PasswordRating {
  score: 0 | 1 | 2 | 3 | 4;
  sequence: { pattern: string; token: string; dictionaryName?: string; rank?: number; l33t?: boolean; reversed?: boolean }[];
}

export type PasswordRater = (password: string, userInputs: string[]) => PasswordRating;

let loading: Promise<PasswordRater> | undefined;

export function loadPasswordRater(): Promise<PasswordRater> {
  loading ??= Promise.all([
    import('@zxcvbn-ts/core'),
    import('@zxcvbn-ts/language-common'),
    import('@zxcvbn-ts/language-ja'),
  ]).then(([core, common, ja]) => {
    const japanese = Object.fromEntries(Object.entries(ja.dictionary).map(([name, words]) => [`ja-${name}`, words]));
    const zxcvbn = new core.ZxcvbnFactory({ dictionary: { ...common.dictionary, ...japanese }, graphs: common.adjacencyGraphs });
    return (password, userInputs) => zxcvbn.check(password.slice(0, 72), userInputs) as PasswordRating;
  });
  return loading;
}

const KANA_TABLE =
  'ア a イ i ウ u エ e オ o カ ka キ ki ク ku ケ ke コ ko サ sa シ shi ス su セ se ソ so タ ta チ chi ツ tsu テ te ト to ' +
  'ナ na ニ ni ヌ nu ネ ne ノ no ハ ha ヒ hi フ fu ヘ he ホ ho マ ma ミ mi ム mu メ me モ mo ヤ ya ユ yu ヨ yo ' +
  'ラ ra リ ri ル ru レ re ロ ro ワ wa ヲ o ン n ガ ga ギ gi グ gu ゲ ge ゴ go ザ za ジ ji ズ zu ゼ ze ゾ zo ' +
  'ダ da ヂ ji ヅ zu デ de ド do バ ba ビ bi ブ bu ベ be ボ bo パ pa ピ pi プ pu ペ pe ポ po ヴ vu ' +
  'ァ a ィ i ゥ u ェ e ォ o ャ ya ュ yu ョ yo';
const KANA: Record<string, string> = Object.fromEntries(
  [...KANA_TABLE.matchAll(/(\S+) (\S+)/g)].map((m) => [m[1] as string, m[2] as string]),
);

function romanise(kana: string): string {
  // NFKC: ﾔﾏﾀﾞ → ヤマダ; hiragana as typed (やまだ) read as katakana.
  const chars = [...kana.normalize('NFKC').replace(/[\u3041-\u3096]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0x60))];
  let out = '';
  let doubleNext = false;
  chars.forEach((char, i) => {
    if (char === 'ッ') {
      doubleNext = true;
      return;
    }
    let syllable = char === 'ー' ? (out.at(-1) ?? '') : (KANA[char] ?? '');
    if (/[ャュョ]/.test(char)) return;
    const small = chars[i + 1] && /[ャュョ]/.test(chars[i + 1] as string) ? (KANA[chars[i + 1] as string] as string) : '';
    // キャ → kya, シャ → sha, ジョ → jo
    if (small && syllable.endsWith('i'))
      syllable = /^(sh|ch|j)i$/.test(syllable) ? syllable.slice(0, -1) + small.slice(1) : syllable.slice(0, -1) + small;
    if (doubleNext) syllable = (syllable[0] ?? '') + syllable;
    doubleNext = false;
    out += syllable;
  });
  return out;
}

const text = (value: unknown) => (typeof value === 'string' ? value.normalize('NFKC').trim().toLowerCase() : '');

export function passwordUserInputs(owner: PasswordOwnerDetails): string[] {
  const email = text(owner.email);
  const local = email.split('@')[0] ?? '';
  const kana = [text(owner.lastNameKana), text(owner.firstNameKana)];
  const inputs = [
    email,
    local,
    ...local.split(/[^a-z]+/),
    text(owner.lastName),
    text(owner.firstName),
    ...kana,
    ...kana.map(romanise),
  ];
  return [...new Set(inputs.filter((input) => input.length >= 2))];
}

/** 訓令式 as some people spell their names (si, ti, tu, hu, zi, sya). */
const kunrei = (hepburn: string) =>
  hepburn
    .replaceAll('shi', 'si')
    .replaceAll('chi', 'ti')
    .replaceAll('tsu', 'tu')
    .replaceAll('fu', 'hu')
    .replaceAll('ji', 'zi')
    .replaceAll('sh', 'sy')
    .replaceAll('ch', 'ty')
    .replaceAll('j', 'zy');

/** At least this long, a piece of the owner's details is refused inside a new password. */
const CONTEXT_PART_LENGTH = 4;

/** Pieces of the e-mail's local part, the フリガナ and its romanisations a new password may not contain. */
export function passwordContextParts(owner: PasswordOwnerDetails): { email: string[]; name: string[] } {
  const local = text(owner.email).split('@')[0] ?? '';
  const kana = [text(owner.lastNameKana), text(owner.firstNameKana)].map((k) => k.replace(/\s+/g, ''));
  const whole = kana.join('');
  const romaji = [...kana, whole].filter(Boolean).map(romanise);
  const long = (parts: string[]) => [...new Set(parts.filter((part) => part.length >= CONTEXT_PART_LENGTH))];
  return {
    email: long(local.split(/[._+\-0-9]+/)),
    name: long([...kana, whole, ...romaji, ...romaji.map(kunrei)]),
  };
}

export function strongEnough(rate: PasswordRater, password: string, owner: PasswordOwnerDetails): boolean {
  return rate(password, passwordUserInputs(owner)).score >= MIN_PASSWORD_SCORE;
}
