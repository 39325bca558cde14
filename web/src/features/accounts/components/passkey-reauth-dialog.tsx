import { useEffect, useState } from 'react';
import { ConfirmDialog } from '../../../components/ui/confirm-dialog';
import { FormAlert } from '../../../components/ui/form-alert';
import { TextInput } from '../../../components/ui/text-input';
import type { FieldErrors } from '../../../lib/api';

export interface Reauthentication {
  password: string;
  code?: string;
}

/**
 * Before a passkey is added: the current password and, with two-factor on, a code from the app or a
 * recovery code (a session alone must not add a key that signs in by itself). `onSubmit` does the
 * registration; its field errors come back in `errors`.
 */
export function PasskeyReauthDialog({
  open,
  twoFactor,
  busy,
  message,
  errors,
  onSubmit,
  onCancel,
}: {
  open: boolean;
  twoFactor: boolean;
  busy: boolean;
  message: string;
  errors: FieldErrors;
  onSubmit: (values: Reauthentication) => void;
  onCancel: () => void;
}) {
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  // Nothing typed outlives the dialog.
  useEffect(() => {
    if (open) return;
    setPassword('');
    setCode('');
  }, [open]);
  return (
    <ConfirmDialog
      open={open}
      title="本人確認"
      confirmLabel="確認して登録する"
      busy={busy}
      onConfirm={() => onSubmit(twoFactor ? { password, code } : { password })}
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
