import QRCode from 'qrcode';
import { type FormEvent, useEffect, useState } from 'react';
import { FormAlert } from '../../../components/ui/form-alert';
import { Loading } from '../../../components/ui/load-state';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { TextInput } from '../../../components/ui/text-input';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { enableTwoFactor, setupTwoFactor, type TwoFactorSetup } from '../api/security';

type Setup = TwoFactorSetup;

/** A phone (touch first, or a phone's browser): its authenticator app opens from an `otpauth://` link; a QR code cannot be scanned by the phone showing it. */
const onPhone = () =>
  window.matchMedia('(pointer: coarse)').matches || /Android|iPhone|iPad|iPod|Mobile/i.test(navigator.userAgent);

/** Step 1: the current password, which starts setup. */
function PasswordStep({ onSetup }: { onSetup: (setup: Setup) => void }) {
  const [password, setPassword] = useState('');
  const { busy, message, errors, run } = useFormSubmit();
  const start = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      onSetup(await setupTwoFactor({ password }));
      setPassword('');
    });
  };
  return (
    <form onSubmit={start} noValidate>
      <p>本人確認のため、現在のパスワードを入力してください。</p>
      <FormAlert message={message} errors={errors} fields={['password']} />
      <TextInput
        label="現在のパスワード"
        name="password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        message={errors.password}
        onInput={setPassword}
      />
      <button type="submit" className="button primary" disabled={busy}>
        設定を始める
      </button>
      <LoadingOverlay show={busy} label="確認しています" />
    </form>
  );
}

/** How to add the account to an app: the `otpauth://` link on a phone, the QR code, the key by hand. */
function AddToApp({ setup }: { setup: Setup }) {
  const [qr, setQr] = useState('');
  useEffect(() => {
    QRCode.toDataURL(setup.totp_uri, { margin: 1, width: 220 })
      .then(setQr)
      .catch(() => setQr(''));
  }, [setup]);
  return (
    <>
      <ol className="steps">
        <li>Google Authenticator や Microsoft Authenticator などの認証アプリで、次のQRコードを読み取ってください。</li>
        <li>読み取れない場合は、認証アプリに次のキーを手動で入力してください（時間ベース、6桁）。</li>
        <li>認証アプリに表示された6桁の確認コードを入力して「有効にする」を押してください。</li>
      </ol>
      {onPhone() ? (
        <p>
          <a className="button primary" href={setup.totp_uri}>
            認証アプリで開く
          </a>
          <br />
          <span className="small">この端末に認証アプリが入っている場合は、このボタンで登録できます。</span>
        </p>
      ) : null}
      {qr ? (
        <img className="totp-qr" src={qr} alt="認証アプリ登録用のQRコード" width={220} height={220} />
      ) : (
        <Loading label="QRコードを作成しています…" />
      )}
      <p>
        手動入力用のキー：<code className="totp-secret">{setup.secret}</code>
      </p>
    </>
  );
}

/** Step 2: the first code from the app turns two-factor on and returns the recovery codes. */
function CodeStep({ setup, onEnabled }: { setup: Setup; onEnabled: (codes: string[]) => void }) {
  const [code, setCode] = useState('');
  const { busy, message, errors, run } = useFormSubmit();
  const enable = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      const res = await enableTwoFactor({ code });
      onEnabled(res.recovery_codes);
    });
  };
  return (
    <form onSubmit={enable} noValidate>
      <AddToApp setup={setup} />
      <FormAlert message={message} errors={errors} fields={['code']} />
      <TextInput
        label="確認コード"
        name="code"
        autoComplete="one-time-code"
        required
        value={code}
        message={errors.code}
        onInput={setCode}
      />
      <button type="submit" className="button primary" disabled={busy}>
        有効にする
      </button>
      <LoadingOverlay show={busy} label="確認しています" />
    </form>
  );
}

/** Setup: the password, then a QR code (or the app link on a phone, and the secret for manual entry), then the first code. */
export function TwoFactorEnrol({ onEnabled }: { onEnabled: (codes: string[]) => void }) {
  const [setup, setSetup] = useState<Setup | null>(null);
  return setup ? <CodeStep setup={setup} onEnabled={onEnabled} /> : <PasswordStep onSetup={setSetup} />;
}
