import { lazy, Suspense } from 'react';
import type { PasswordOwnerDetails } from '../../../src/lib/password-strength';
import type { FieldErrors } from '../lib/api';
import { TextInput } from './ui/text-input';

// The meter and zxcvbn-ts load with the first typed character, so no page starts any heavier.
const PasswordStrength = lazy(() => import('./password-strength').then((m) => ({ default: m.PasswordStrength })));

/** A new password and its confirmation (8〜72 characters), as every password form asks for them. */
export function PasswordPair({
  names,
  values,
  errors,
  onChange,
  label = '新しいパスワード',
  strength,
}: {
  names: [string, string];
  values: Record<string, string>;
  errors: FieldErrors;
  onChange: (values: Record<string, string>) => void;
  label?: string;
  /** Show a strength meter, judging the password against its owner's details as the server does. */
  strength?: { owner: PasswordOwnerDetails };
}) {
  const [password, confirmation] = names;
  return (
    <>
      <TextInput
        label={`${label}（8〜72文字）`}
        name={password}
        type="password"
        autoComplete="new-password"
        required
        value={values[password] ?? ''}
        message={errors[password]}
        onInput={(value) => onChange({ ...values, [password]: value })}
      />
      {strength && values[password] ? (
        <Suspense fallback={<p className="small password-strength">パスワードの強さ：確認しています…</p>}>
          <PasswordStrength password={values[password] ?? ''} owner={strength.owner} />
        </Suspense>
      ) : null}
      <TextInput
        label={`${label}（確認）`}
        name={confirmation}
        type="password"
        autoComplete="new-password"
        required
        value={values[confirmation] ?? ''}
        message={errors[confirmation]}
        onInput={(value) => onChange({ ...values, [confirmation]: value })}
      />
    </>
  );
}
