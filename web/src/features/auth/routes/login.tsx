import { type FormEvent, useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ResendVerification } from '../../../components/resend-verification';
import { FormAlert } from '../../../components/ui/form-alert';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { TextInput } from '../../../components/ui/text-input';
import { type Answer, api } from '../../../lib/api';
import { clearAuthMessages, completeSignIn, login, useAuth } from '../../../lib/auth-store';
import { formFields } from '../../../lib/form-fields';
import { passkeysSupported, signWithPasskey } from '../../../lib/webauthn';
import { TwoFactorStep } from '../components/two-factor-step';
import { useSignIn } from '../hooks/use-sign-in';
import { safeNext } from '../return-to';

const LABELS = { email: 'メールアドレス', password: 'パスワード' };

function AfterForm({ email, unverified }: { email: string; unverified: boolean }) {
  return (
    <>
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
    </>
  );
}

export function LoginPage() {
  // The page a signed-out member was going to (set by the route guards); only a path of this site is followed.
  const next = useSearchParams()[0].get('next');
  const { message, errors } = useAuth();
  const [form, setForm] = useState({ email: '', password: '' });
  const signIn = useSignIn(next);
  // The second step: the password was right and the account asks for a code.
  const [challenge, setChallenge] = useState<{ trustDeviceAvailable: boolean } | null>(null);
  const field = formFields(form, setForm, errors, LABELS);

  useEffect(() => clearAuthMessages, []);

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    return signIn.attempt(async () => {
      const answer = await login(form.email, form.password);
      if (answer && 'twoFactor' in answer) {
        setForm({ ...form, password: '' });
        setChallenge({ trustDeviceAvailable: answer.trustDeviceAvailable });
      } else signIn.signedIn(answer);
    });
  };
  const signInWithPasskey = () =>
    signIn.attempt(
      async () => {
        const { options } = await api<Answer<'/api/login/passkey/options', 'post'>>('/api/login/passkey/options', {
          method: 'POST',
        });
        const response = await signWithPasskey(options);
        signIn.signedIn(await completeSignIn('/api/login/passkey', { response }));
      },
      (error) => (error instanceof Error ? error.message : 'パスキーでログインできませんでした。'),
    );

  if (challenge)
    return (
      <TwoFactorStep trustDeviceAvailable={challenge.trustDeviceAvailable} signIn={signIn} onBack={() => setChallenge(null)} />
    );
  return (
    <section className="card narrow">
      <h1>ログイン</h1>
      {safeNext(next) ? <p>ログインすると、開こうとしていたページに戻ります。</p> : null}
      {/* Field errors sit under their fields; this one summary is what is announced (and focused without a field). */}
      <FormAlert message={signIn.failure || message} errors={errors} fields={['email', 'password']} />
      <form onSubmit={submit} noValidate>
        <TextInput {...field('email')} type="email" autoComplete="username" required />
        <TextInput
          {...field('password')}
          type="password"
          autoComplete="current-password"
          required
          onEnter={() => void submit()}
        />
        <button type="submit" className="button primary" disabled={signIn.busy}>
          ログインする
        </button>
      </form>
      {passkeysSupported() ? (
        <div className="subsection">
          <button type="button" className="button" disabled={signIn.busy} onClick={() => void signInWithPasskey()}>
            パスキーでログイン
          </button>
        </div>
      ) : null}
      <AfterForm email={form.email} unverified={(errors.email ?? '').includes('メールアドレスの確認が完了していません')} />
      <LoadingOverlay show={signIn.busy} label="ログインしています" />
    </section>
  );
}
