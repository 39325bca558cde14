import { type FormEvent, useState } from 'react';
import { Link, useParams } from 'react-router';
import { PasswordPair } from '../../../components/password-pair';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { TextInput } from '../../../components/ui/text-input';
import { useAuth } from '../../../lib/auth-store';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { changePassword } from '../api/use-member';
import { PasswordPasskeys } from '../components/password-passkeys';

const empty = { old_password: '', new_password: '', new_password_confirmation: '' };

export function UserPasswordPage() {
  const { id = '' } = useParams();
  const [values, setValues] = useState(empty);
  const [done, setDone] = useState('');
  const me = useAuth().users[0];
  const { busy, message, errors, run } = useFormSubmit();
  const set = (field: keyof typeof empty) => (value: string) => setValues({ ...values, [field]: value });
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      const res = await changePassword(id, values);
      setValues(empty);
      setDone(res.message);
    });
  };
  return (
    <section className="card narrow">
      <h1>パスワードの変更</h1>
      {done ? (
        <>
          <Notice>{done} ほかの端末ではログアウトされました。</Notice>
          <p>
            <Link to={`/users/${id}`}>会員情報へ戻る</Link>
          </p>
        </>
      ) : (
        <>
          <FormAlert message={message} errors={errors} fields={Object.keys(empty)} />
          <form onSubmit={submit} noValidate>
            <TextInput
              label="現在のパスワード"
              name="old_password"
              type="password"
              autoComplete="current-password"
              required
              value={values.old_password}
              message={errors.old_password}
              onInput={set('old_password')}
            />
            <PasswordPair
              names={['new_password', 'new_password_confirmation']}
              values={values}
              errors={errors}
              onChange={(next) => setValues({ ...values, ...next })}
              strength={{ owner: me ? { email: me.email, lastName: me.last_name, firstName: me.first_name } : {} }}
            />
            <div className="actions">
              <Link to={`/users/${id}`} className="button">
                キャンセル
              </Link>
              <button type="submit" className="button primary" disabled={busy}>
                パスワードを変更する
              </button>
            </div>
          </form>
        </>
      )}
      {me?.id === id ? <PasswordPasskeys /> : null}
      <LoadingOverlay show={busy} label="変更しています" />
    </section>
  );
}
