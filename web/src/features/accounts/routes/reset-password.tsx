import { type FormEvent, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { PasswordPair } from '../../../components/password-pair';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { Loading } from '../../../components/ui/load-state';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { TextInput } from '../../../components/ui/text-input';
import { ApiError } from '../../../lib/api';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { resetPassword, useResetLink } from '../api/links';

/** A link that no longer works: what happened, and a new one in one step (the address is already known). */
function DeadLink({ message, email }: { message: string; email: string }) {
  return (
    <>
      <div className="alert" role="alert">
        <p>{message}</p>
      </div>
      <p>
        <Link to={email ? `/forgot-password?email=${encodeURIComponent(email)}` : '/forgot-password'} className="button primary">
          再設定メールをもう一度送る
        </Link>
      </p>
      <p className="small">
        <Link to="/login">ログイン画面へ</Link>
      </p>
    </>
  );
}

export function ResetPasswordPage() {
  const { token = '' } = useParams();
  // The e-mailed link carries the address it was sent to (?email=): the member only chooses a password.
  const [query] = useSearchParams();
  const [values, setValues] = useState({ email: query.get('email') ?? '', password: '', password_confirmation: '' });
  const [done, setDone] = useState('');
  const { busy, message, errors, run } = useFormSubmit();
  // Asked once when the page opens: a dead link says so before the member chooses a password.
  const link = useResetLink(token);
  const [failure, setFailure] = useState<{ code: string; message: string } | null>(null);
  const set = (field: keyof typeof values) => (value: string) => setValues({ ...values, [field]: value });
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      try {
        setDone((await resetPassword({ ...values, token })).message);
      } catch (error) {
        // Used or expired meanwhile (another tab, a mail scanner): the same page as on opening.
        const code = error instanceof ApiError ? (error.body as { code?: string } | undefined)?.code : undefined;
        if (code?.startsWith('reset_link_') && error instanceof ApiError) setFailure({ code, message: error.message });
        else throw error;
      }
    });
  };
  const dead = failure ?? (link.data && !link.data.valid ? link.data : null);
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
      ) : dead ? (
        <DeadLink message={dead.message} email={values.email} />
      ) : !link.data && !link.error && token ? (
        <Loading label="リンクを確認しています…" />
      ) : (
        <>
          <FormAlert message={message} errors={errors} fields={['email', 'password', 'password_confirmation']} />
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
              strength={{ owner: { email: values.email } }}
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
