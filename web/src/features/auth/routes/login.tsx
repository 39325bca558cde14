import { type FormEvent, useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ResendVerification } from '../../../components/resend-verification';
import { CheckboxField } from '../../../components/ui/checkbox-field';
import { FormAlert } from '../../../components/ui/form-alert';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { TextInput } from '../../../components/ui/text-input';
import { ApiError, api } from '../../../lib/api';
import { type CurrentUser, clearAuthMessages, completeSignIn, login, useAuth } from '../../../lib/auth-store';
import { passkeysSupported, signWithPasskey } from '../../../lib/webauthn';
import { afterSignIn } from '../after-sign-in';
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
  // The second step: the password was right and the account asks for a code.
  const [challenge, setChallenge] = useState<{ trustDeviceAvailable: boolean } | null>(null);
  const [code, setCode] = useState('');
  const [useRecovery, setUseRecovery] = useState(false);
  const [trustDevice, setTrustDevice] = useState(false);

  useEffect(() => clearAuthMessages, []);

  const signedIn = (user: CurrentUser | null) => {
    if (user) navigate(afterSignIn(user, next), { replace: true });
  };

  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    if (busy) return;
    setBusy(true);
    setFailure('');
    try {
      const answer = await login(email, password);
      if (answer && 'twoFactor' in answer) {
        setPassword('');
        setChallenge({ trustDeviceAvailable: answer.trustDeviceAvailable });
      } else signedIn(answer);
    } catch (error) {
      setFailure(error instanceof ApiError ? error.message : 'ログインに失敗しました。時間をおいて再度お試しください。');
    } finally {
      setBusy(false);
    }
  };

  const submitCode = async (event?: FormEvent) => {
    event?.preventDefault();
    if (busy) return;
    setBusy(true);
    setFailure('');
    try {
      const body = useRecovery ? { recovery_code: code, trust_device: trustDevice } : { code, trust_device: trustDevice };
      signedIn(await completeSignIn('/api/login/two-factor', body));
    } catch (error) {
      setFailure(error instanceof ApiError ? error.message : 'ログインに失敗しました。時間をおいて再度お試しください。');
    } finally {
      setBusy(false);
    }
  };

  const signInWithPasskey = async () => {
    if (busy) return;
    setBusy(true);
    setFailure('');
    try {
      const { options } = await api<{ options: unknown }>('/api/login/passkey/options', { method: 'POST' });
      const response = await signWithPasskey(options);
      signedIn(await completeSignIn('/api/login/passkey', { response }));
    } catch (error) {
      setFailure(error instanceof Error ? error.message : 'パスキーでログインできませんでした。');
    } finally {
      setBusy(false);
    }
  };

  if (challenge) {
    const field = useRecovery ? 'recovery_code' : 'code';
    return (
      <section className="card narrow">
        <h1>二段階認証</h1>
        <p>
          {useRecovery
            ? '保存しておいたリカバリーコードを1つ入力してください。使ったコードは再び使えません。'
            : '認証アプリに表示されている6桁の確認コードを入力してください。'}
        </p>
        <FormAlert message={failure || message} errors={errors} fields={[field]} />
        <form onSubmit={submitCode} noValidate>
          <TextInput
            key={field}
            label={useRecovery ? 'リカバリーコード' : '確認コード'}
            name={field}
            autoComplete="one-time-code"
            required
            value={code}
            message={errors[field]}
            onInput={setCode}
            onEnter={() => void submitCode()}
          />
          {challenge.trustDeviceAvailable ? (
            <CheckboxField label="この端末を30日間信頼する" name="trust_device" checked={trustDevice} onChange={setTrustDevice} />
          ) : null}
          <button type="submit" className="button primary" disabled={busy}>
            確認してログインする
          </button>
        </form>
        <ul className="links">
          <li>
            <button
              type="button"
              className="link-button"
              onClick={() => {
                setUseRecovery(!useRecovery);
                setCode('');
                clearAuthMessages();
                setFailure('');
              }}
            >
              {useRecovery ? '確認コードを使う' : '認証アプリを使えない場合（リカバリーコードを使う）'}
            </button>
          </li>
          <li>
            <button
              type="button"
              className="link-button"
              onClick={() => {
                setChallenge(null);
                setCode('');
                clearAuthMessages();
                setFailure('');
              }}
            >
              メールアドレスとパスワードの入力に戻る
            </button>
          </li>
        </ul>
        <LoadingOverlay show={busy} label="確認しています" />
      </section>
    );
  }

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
      {passkeysSupported() ? (
        <div className="subsection">
          <button type="button" className="button" disabled={busy} onClick={() => void signInWithPasskey()}>
            パスキーでログイン
          </button>
        </div>
      ) : null}
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
