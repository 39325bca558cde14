import { useEffect, useId, useState } from 'react';
import {
  loadPasswordRater,
  MIN_PASSWORD_SCORE,
  type PasswordOwnerDetails,
  type PasswordRater,
  type PasswordRating,
  passwordUserInputs,
} from '../../../src/lib/password-strength';

const LEVELS = ['とても弱い', '弱い', 'やや弱い', '強い', 'とても強い'] as const;

/** The same rule as the server's (src/modules/accounts/password-policy.ts): the 10,000 most common. */
const COMMON_RANK = 10_000;

function hintOf(password: string, result: PasswordRating, userInputs: string[]): string {
  const whole = result.sequence.length === 1 ? result.sequence[0] : undefined;
  if (
    whole?.pattern === 'dictionary' &&
    whole.dictionaryName === 'passwords-common' &&
    // The server's list is compared exactly (without case): P@ssw0rd is refused as weak, not as listed.
    !whole.l33t &&
    !whole.reversed &&
    (whole.rank ?? Number.POSITIVE_INFINITY) <= COMMON_RANK &&
    whole.token.length === password.length
  ) {
    return 'よく使われているパスワードのため、登録できません。';
  }
  if (result.sequence.some((m) => m.dictionaryName === 'userInputs')) return 'メールアドレスやお名前は含めないでください。';
  if (userInputs.some((input) => input.length >= 3 && password.toLowerCase().includes(input.toLowerCase())))
    return 'メールアドレスやお名前は含めないでください。';
  // The server's floor (src/lib/password-strength.ts): below it the password is refused, not only weak.
  if (result.score < MIN_PASSWORD_SCORE)
    return '単純で推測されやすいため、登録できません。関係のない単語を組み合わせてください。';
  if (result.score === MIN_PASSWORD_SCORE) return '長くする、関係のない単語を組み合わせるなどで強くできます。';
  return '推測されにくいパスワードです。';
}

/**
 * A strength meter under a new password: `<meter>` for the bar plus the level and a hint in words
 * (never colour alone), announced politely to screen readers. The server decides with the same rule.
 */
export function PasswordStrength({ password, owner = {} }: { password: string; owner?: PasswordOwnerDetails }) {
  const id = useId();
  const [rate, setRate] = useState<PasswordRater>();
  useEffect(() => {
    if (password && !rate) void loadPasswordRater().then((r) => setRate(() => r));
  }, [password, rate]);
  const inputs = passwordUserInputs(owner);
  const result = password && rate ? rate(password, inputs) : undefined;
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
