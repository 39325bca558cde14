import { type FormEvent, useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { afterSignIn } from '../../../app/guards';
import { ResendVerification } from '../../../components/resend-verification';
import { FormAlert } from '../../../components/ui/form-alert';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { TextInput } from '../../../components/ui/text-input';
import { ApiError } from '../../../lib/api';
import { clearAuthMessages, login, useAuth } from '../../../lib/auth-store';
import { safeNext } from '../return-to';

export function LoginPage() {
  const navigate = useNavigate();
  // The page a signed-out member was going to (set by the route guards); only a path of this site is followed.
  const next = useSearchParams()[0].get('next');
  const { message, errors } = useAuth();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState('');

  useEffect(() => clearAuthMessages, []);

  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    if (busy) return;
    setBusy(true);
    setFailure('');
    try {
      const user = await login(email, password);
      if (user) navigate(afterSignIn(user, next), { replace: true });
    } catch (error) {
      setFailure(error instanceof ApiError ? error.message : 'ログインに失敗しました。時間をおいて再度お試しください。');
    } finally {
      setBusy(false);
    }
  };

  const unverified = (errors.email ?? '').includes('メールアドレスの確認が完了していません');
  return (
    <section className="card narrow">
      <h1>ログイン</h1>
      {safeNext(next) ? <p>ログインすると、開こうとしていたページに戻ります。</p> : null}
      {/* Field errors sit under their fields; this one summary is what is announced (and focused without a field). */}
      <FormAlert message={failure || message} errors={errors} fields={['email', 'password']} />
      <form onSubmit={submit} noValidate>
        <TextInput
          label="メールアドレス"
          name="email"
          type="email"
          autoComplete="username"
          required
          value={email}
          message={errors.email}
          onInput={setEmail}
        />
        <TextInput
          label="パスワード"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          message={errors.password}
          onInput={setPassword}
          onEnter={() => void submit()}
        />
        <button type="submit" className="button primary" disabled={busy}>
          ログインする
        </button>
      </form>
      {unverified ? (
        <div className="subsection">
          <p>確認メールが届いていない場合や、リンクの有効期限が切れた場合は再送できます。</p>
          <ResendVerification initialEmail={email} />
        </div>
      ) : null}
      <ul className="links">
        <li>
          <Link to="/forgot-password">パスワードをお忘れの方</Link>
        </li>
        <li>
          <Link to="/users/registration">新規会員登録</Link>
        </li>
      </ul>
      <LoadingOverlay show={busy} label="ログインしています" />
    </section>
  );
}
