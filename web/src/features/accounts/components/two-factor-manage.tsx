import { type FormEvent, useState } from 'react';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { TextInput } from '../../../components/ui/text-input';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { disableTwoFactor, renewRecoveryCodes } from '../api/security';

/** A new set of recovery codes (the old set stops working), behind the current password. */
function RenewCodes({ onCodes }: { onCodes: (codes: string[]) => void }) {
  const [password, setPassword] = useState('');
  const { busy, message, errors, run } = useFormSubmit();
  const regenerate = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      const res = await renewRecoveryCodes({ password });
      setPassword('');
      onCodes(res.recovery_codes);
    });
  };
  return (
    <form onSubmit={regenerate} noValidate className="subsection">
      <h3>リカバリーコードの再発行</h3>
      <p>新しいコードを発行すると、これまでのコードは使えなくなります。</p>
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
      <button type="submit" className="button" disabled={busy}>
        リカバリーコードを再発行する
      </button>
      <LoadingOverlay show={busy} label="処理しています" />
    </form>
  );
}

/** Turning two-factor off: the current password and a current code. */
function DisableTwoFactor({ onDisabled }: { onDisabled: (message: string) => void }) {
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const { busy, message, errors, run } = useFormSubmit();
  const disable = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      const res = await disableTwoFactor({ password, code });
      setPassword('');
      setCode('');
      onDisabled(res.message);
    });
  };
  return (
    <form onSubmit={disable} noValidate className="subsection">
      <h3>二段階認証を無効にする</h3>
      <FormAlert message={message} errors={errors} fields={['password', 'code']} />
      <TextInput
        label="現在のパスワード"
        name="off_password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        message={errors.password}
        onInput={setPassword}
      />
      <TextInput
        label="確認コード"
        name="off_code"
        autoComplete="one-time-code"
        required
        value={code}
        message={errors.code}
        onInput={setCode}
      />
      <button type="submit" className="button danger" disabled={busy}>
        無効にする
      </button>
      <LoadingOverlay show={busy} label="処理しています" />
    </form>
  );
}

/** Two-factor is on: how many recovery codes are left, a new set, and (members only) turning it off. */
export function TwoFactorManage({
  remaining,
  isAdmin,
  onCodes,
  onChanged,
}: {
  remaining: number | null;
  isAdmin: boolean;
  onCodes: (codes: string[]) => void;
  onChanged: () => void;
}) {
  const [done, setDone] = useState('');
  return (
    <>
      {done ? <Notice>{done}</Notice> : null}
      <p>
        二段階認証は<strong>有効</strong>です。
        {remaining !== null ? `未使用のリカバリーコード：${remaining}個` : null}
      </p>
      <RenewCodes onCodes={onCodes} />
      {isAdmin ? (
        <p className="subsection">管理者のアカウントでは、二段階認証を無効にできません。</p>
      ) : (
        <DisableTwoFactor
          onDisabled={(message) => {
            setDone(message);
            onChanged();
          }}
        />
      )}
    </>
  );
}
