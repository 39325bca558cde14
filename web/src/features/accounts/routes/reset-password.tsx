import { type FormEvent, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { PasswordPair } from '../../../components/password-pair';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { TextInput } from '../../../components/ui/text-input';
import { api } from '../../../lib/api';
import { useFormSubmit } from '../../../lib/use-form-submit';

export function ResetPasswordPage() {
  const { token = '' } = useParams();
  // The e-mailed link carries the address it was sent to (?email=): the member only chooses a password.
  const [query] = useSearchParams();
  const [values, setValues] = useState({ email: query.get('email') ?? '', password: '', password_confirmation: '' });
  const [done, setDone] = useState('');
  const { busy, message, errors, run } = useFormSubmit();
  const set = (field: keyof typeof values) => (value: string) => setValues({ ...values, [field]: value });
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () =>
      setDone((await api<{ message: string }>('/api/reset-password', { method: 'POST', body: { ...values, token } })).message),
    );
  };
  return (
    <section className="card narrow">
      <h1>パスワードの再設定</h1>
      {done ? (
        <>
          <Notice>{done}</Notice>
          <p>
            <Link to="/login" className="button primary">
              ログイン画面へ
            </Link>
          </p>
        </>
      ) : (
        <>
          <FormAlert message={message} errors={errors} fields={['email', 'password', 'password_confirmation']} />
          {errors.token ? (
            <p>
              <Link to="/forgot-password">再設定メールをもう一度送る</Link>
            </p>
          ) : null}
          <form onSubmit={submit} noValidate>
            <TextInput
              label="メールアドレス"
              name="email"
              type="email"
              autoComplete="email"
              required
              value={values.email}
              message={errors.email}
              onInput={set('email')}
            />
            <PasswordPair
              names={['password', 'password_confirmation']}
              values={values}
              errors={errors}
              onChange={(next) => setValues({ ...values, ...next })}
              strength={{ userInputs: [values.email.split('@')[0] ?? ''] }}
            />
            <button type="submit" className="button primary" disabled={busy}>
              パスワードを再設定する
            </button>
          </form>
        </>
      )}
      <LoadingOverlay show={busy} label="再設定しています" />
    </section>
  );
}
