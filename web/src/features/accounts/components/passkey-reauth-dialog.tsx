import { useState } from 'react';
import { ConfirmDialog } from '../../../components/ui/confirm-dialog';
import { FormAlert } from '../../../components/ui/form-alert';
import { TextInput } from '../../../components/ui/text-input';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { passkeyOptions } from '../api/security';

/**
 * Before a passkey is added: the current password and, with two-factor on, a code from the app or a
 * recovery code (a session alone must not add a key that signs in by itself). The server answers
 * with the registration options, handed to `onVerified`. Drawn only while it asks, so nothing typed
 * (nor an old error) outlives it.
 */
export function PasskeyReauthDialog({
  twoFactor,
  onVerified,
  onCancel,
}: {
  twoFactor: boolean;
  onVerified: (options: unknown) => void;
  onCancel: () => void;
}) {
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const { busy, message, errors, run } = useFormSubmit();
  const submit = async () => {
    const body = twoFactor ? { password, code } : { password };
    const answer = await run(() => passkeyOptions(body));
    if (answer) onVerified(answer.options);
  };
  return (
    <ConfirmDialog
      open
      title="本人確認"
      confirmLabel="確認して登録する"
      busy={busy}
      onConfirm={() => void submit()}
      onCancel={onCancel}
    >
      <p>
        {twoFactor
          ? 'パスキーを登録するには、現在のパスワードと、認証アプリの確認コード（またはリカバリーコード）を入力してください。'
          : 'パスキーを登録するには、現在のパスワードを入力してください。'}
      </p>
      <FormAlert message={message} errors={errors} fields={twoFactor ? ['password', 'code'] : ['password']} />
      <TextInput
        label="現在のパスワード"
        name="reauth_password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        message={errors.password}
        onInput={setPassword}
      />
      {twoFactor ? (
        <TextInput
          label="確認コードまたはリカバリーコード"
          name="reauth_code"
          autoComplete="one-time-code"
          required
          value={code}
          message={errors.code}
          onInput={setCode}
        />
      ) : null}
    </ConfirmDialog>
  );
}
