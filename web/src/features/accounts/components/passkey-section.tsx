import { type FormEvent, useRef, useState } from 'react';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { TextInput } from '../../../components/ui/text-input';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { createPasskey, passkeysSupported } from '../../../lib/webauthn';
import { addPasskey, type Passkey } from '../api/security';
import { PasskeyList } from './passkey-list';
import { PasskeyReauthDialog } from './passkey-reauth-dialog';

/** The security page's passkeys: the list, and registration after the password (and code) is given again. */
export function PasskeySection({
  passkeys,
  twoFactor,
  onChanged,
}: {
  passkeys: Passkey[];
  twoFactor: boolean;
  onChanged: () => void;
}) {
  const [name, setName] = useState('');
  const [asking, setAsking] = useState(false);
  const [done, setDone] = useState('');
  const [failure, setFailure] = useState('');
  const registration = useFormSubmit();
  const button = useRef<HTMLButtonElement>(null);
  // The dialog is drawn only while it asks (no second 現在のパスワード field on the page); focus goes back.
  const closeDialog = () => {
    setAsking(false);
    button.current?.focus();
  };

  const start = (event: FormEvent) => {
    event.preventDefault();
    setFailure('');
    setDone('');
    setAsking(true);
  };
  const register = async (options: unknown) => {
    closeDialog();
    await registration.run(async () => {
      let response: unknown;
      try {
        response = await createPasskey(options);
      } catch (error) {
        setFailure(error instanceof Error ? error.message : 'パスキーを登録できませんでした。');
        return;
      }
      const res = await addPasskey(response, name);
      setName('');
      setDone(res.message);
      onChanged();
    });
  };

  return (
    <section className="subsection" aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">パスキー</h2>
      <p>
        指紋・顔認証や端末の PIN
        でのロック解除でログインできます。パスキーでのログインは二段階認証を満たします（本人確認のできる端末に限ります）。
      </p>
      {done ? <Notice>{done}</Notice> : null}
      <PasskeyList passkeys={passkeys} onChanged={onChanged} />
      {passkeysSupported() ? (
        <form onSubmit={start} noValidate>
          <FormAlert message={failure || registration.message} errors={registration.errors} fields={['name']} />
          <TextInput
            label="パスキーの名前（任意）"
            name="passkey_name"
            value={name}
            message={registration.errors.name}
            onInput={setName}
            placeholder="例：仕事用パソコン"
          />
          <button ref={button} type="submit" className="button" disabled={registration.busy}>
            パスキーを登録する
          </button>
        </form>
      ) : (
        <p>お使いのブラウザはパスキーに対応していません。</p>
      )}
      {asking ? (
        <PasskeyReauthDialog twoFactor={twoFactor} onVerified={(options) => void register(options)} onCancel={closeDialog} />
      ) : null}
      <LoadingOverlay show={registration.busy} label="処理しています" />
    </section>
  );
}
