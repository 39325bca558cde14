import { type FormEvent, useState } from 'react';
import { type Answer, api } from '../lib/api';
import { useFormSubmit } from '../lib/use-form-submit';
import { FormAlert, Notice } from './ui/form-alert';
import { TextInput } from './ui/text-input';

/** Asks for a new verification link (the answer never says whether the address exists). */
export function ResendVerification({ initialEmail = '' }: { initialEmail?: string }) {
  const [email, setEmail] = useState(initialEmail);
  const [sent, setSent] = useState('');
  const { busy, message, errors, run } = useFormSubmit();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      const res = await api<Answer<'/api/users/registration/resend', 'post'>>('/api/users/registration/resend', {
        method: 'POST',
        body: { email },
      });
      setSent(res.message);
    });
  };
  if (sent) return <Notice>{sent}</Notice>;
  return (
    <form onSubmit={submit} noValidate className="subform">
      <FormAlert message={message} errors={errors} fields={['email']} />
      <TextInput
        label="メールアドレス"
        name="email"
        type="email"
        autoComplete="email"
        required
        value={email}
        message={errors.email}
        onInput={setEmail}
      />
      <button type="submit" className="button" disabled={busy}>
        確認メールを再送する
      </button>
    </form>
  );
}
