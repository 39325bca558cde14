import { type FormEvent, useState } from 'react';
import { CheckboxField } from '../../../components/ui/checkbox-field';
import { FormAlert } from '../../../components/ui/form-alert';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { TextInput } from '../../../components/ui/text-input';
import { clearAuthMessages, completeSignIn, useAuth } from '../../../lib/auth-store';
import type { SignIn } from '../hooks/use-sign-in';

function TwoFactorLinks({ useRecovery, onSwitch, onBack }: { useRecovery: boolean; onSwitch: () => void; onBack: () => void }) {
  return (
    <ul className="links">
      <li>
        <button type="button" className="link-button" onClick={onSwitch}>
          {useRecovery ? '確認コードを使う' : '認証アプリを使えない場合（リカバリーコードを使う）'}
        </button>
      </li>
      <li>
        <button type="button" className="link-button" onClick={onBack}>
          メールアドレスとパスワードの入力に戻る
        </button>
      </li>
    </ul>
  );
}

/** The second step: the password was right and the account asks for a code (or a recovery code). */
export function TwoFactorStep({
  trustDeviceAvailable,
  signIn,
  onBack,
}: {
  trustDeviceAvailable: boolean;
  signIn: SignIn;
  onBack: () => void;
}) {
  const { message, errors } = useAuth();
  const [code, setCode] = useState('');
  const [useRecovery, setUseRecovery] = useState(false);
  const [trustDevice, setTrustDevice] = useState(false);
  const field = useRecovery ? 'recovery_code' : 'code';

  const submitCode = (event?: FormEvent) => {
    event?.preventDefault();
    return signIn.attempt(async () => {
      const body = useRecovery ? { recovery_code: code, trust_device: trustDevice } : { code, trust_device: trustDevice };
      signIn.signedIn(await completeSignIn('/api/login/two-factor', body));
    });
  };
  const reset = () => {
    setCode('');
    clearAuthMessages();
    signIn.setFailure('');
  };

  return (
    <section className="card narrow">
      <h1>二段階認証</h1>
      <p>
        {useRecovery
          ? '保存しておいたリカバリーコードを1つ入力してください。使ったコードは再び使えません。'
          : '認証アプリに表示されている6桁の確認コードを入力してください。'}
      </p>
      <FormAlert message={signIn.failure || message} errors={errors} fields={[field]} />
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
        {trustDeviceAvailable ? (
          <CheckboxField label="この端末を30日間信頼する" name="trust_device" checked={trustDevice} onChange={setTrustDevice} />
        ) : null}
        <button type="submit" className="button primary" disabled={signIn.busy}>
          確認してログインする
        </button>
      </form>
      <TwoFactorLinks
        useRecovery={useRecovery}
        onSwitch={() => {
          setUseRecovery(!useRecovery);
          reset();
        }}
        onBack={() => {
          reset();
          onBack();
        }}
      />
      <LoadingOverlay show={signIn.busy} label="確認しています" />
    </section>
  );
}
