import { useEffect, useId, useState } from 'react';

type Zxcvbn = { check: (password: string, userInputs?: string[]) => ZxcvbnResult };
type ZxcvbnResult = {
  score: 0 | 1 | 2 | 3 | 4;
  sequence: { pattern: string; token: string; dictionaryName?: string; rank?: number }[];
};

/** zxcvbn-ts and its dictionaries (~0.5 MB): fetched when a password is first typed, never with the first page. */
let loading: Promise<Zxcvbn> | undefined;
function loadZxcvbn(): Promise<Zxcvbn> {
  loading ??= Promise.all([import('@zxcvbn-ts/core'), import('@zxcvbn-ts/language-common')]).then(
    ([core, common]) =>
      new core.ZxcvbnFactory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs }) as unknown as Zxcvbn,
  );
  return loading;
}

const LEVELS = ['とても弱い', '弱い', 'やや弱い', '強い', 'とても強い'] as const;

/** The same rule as the server's (src/modules/accounts/password-policy.ts): the 10,000 most common. */
const COMMON_RANK = 10_000;

function hintOf(password: string, result: ZxcvbnResult, userInputs: string[]): string {
  const whole = result.sequence.length === 1 ? result.sequence[0] : undefined;
  if (
    whole?.pattern === 'dictionary' &&
    whole.dictionaryName === 'passwords-common' &&
    (whole.rank ?? Number.POSITIVE_INFINITY) <= COMMON_RANK &&
    whole.token.length === password.length
  ) {
    return 'よく使われているパスワードのため、登録できません。';
  }
  if (result.sequence.some((m) => m.dictionaryName === 'userInputs')) return 'メールアドレスやお名前は含めないでください。';
  if (userInputs.some((input) => input.length >= 3 && password.toLowerCase().includes(input.toLowerCase())))
    return 'メールアドレスやお名前は含めないでください。';
  if (result.score <= 2) return '長くする、関係のない単語を組み合わせるなどで強くできます。';
  return '推測されにくいパスワードです。';
}

/**
 * A strength meter under a new password: `<meter>` for the bar plus the level and a hint in words
 * (never colour alone), announced politely to screen readers. The server decides; this only advises.
 */
export function PasswordStrength({ password, userInputs = [] }: { password: string; userInputs?: string[] }) {
  const id = useId();
  const [zxcvbn, setZxcvbn] = useState<Zxcvbn>();
  useEffect(() => {
    if (password && !zxcvbn) void loadZxcvbn().then((z) => setZxcvbn(() => z));
  }, [password, zxcvbn]);
  const inputs = userInputs.filter(Boolean);
  const result = password && zxcvbn ? zxcvbn.check(password.slice(0, 72), inputs) : undefined;
  const score = result ? result.score : 0;
  return (
    <div className="password-strength" data-score={result ? score : undefined}>
      <meter
        id={`${id}-meter`}
        min={0}
        max={4}
        low={2}
        high={3}
        optimum={4}
        value={result ? score : 0}
        aria-labelledby={`${id}-text`}
      />
      <p id={`${id}-text`} className="small" role="status" aria-live="polite">
        {!password
          ? 'パスワードの強さ：未入力'
          : !result
            ? 'パスワードの強さ：確認しています…'
            : `パスワードの強さ：${LEVELS[score]}（5段階中${score + 1}）。${hintOf(password, result, inputs)}`}
      </p>
    </div>
  );
}
