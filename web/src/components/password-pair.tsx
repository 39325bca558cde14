import type { FieldErrors } from '../lib/api';
import { TextInput } from './ui/text-input';

/** A new password and its confirmation (8〜72 characters), as every password form asks for them. */
export function PasswordPair({
  names,
  values,
  errors,
  onChange,
  label = '新しいパスワード',
}: {
  names: [string, string];
  values: Record<string, string>;
  errors: FieldErrors;
  onChange: (values: Record<string, string>) => void;
  label?: string;
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
