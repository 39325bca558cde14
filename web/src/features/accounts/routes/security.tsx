import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import useSWR from 'swr';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { TextInput } from '../../../components/ui/text-input';
import { useConfirm } from '../../../components/ui/use-confirm';
import { api } from '../../../lib/api';
import { fetchCurrentUser, useAuth } from '../../../lib/auth-store';
import { formatDateTime } from '../../../lib/format';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { homeOf } from '../../../lib/user-home';
import { createPasskey, passkeysSupported } from '../../../lib/webauthn';
import { RecoveryCodes } from '../components/recovery-codes';
import { TwoFactorEnrol } from '../components/two-factor-enrol';
import { TwoFactorManage } from '../components/two-factor-manage';

interface Passkey {
  id: string;
  name: string;
  created_at: string | null;
  synced: boolean;
}
interface Status {
  enabled: boolean;
  recovery_codes_remaining: number | null;
  passkeys: Passkey[];
}

/** The member's passkeys, each with its remove button. */
function PasskeyList({ passkeys, busy, onRemove }: { passkeys: Passkey[]; busy: boolean; onRemove: (passkey: Passkey) => void }) {
  if (passkeys.length === 0) return <p>登録済みのパスキーはありません。</p>;
  return (
    <ul className="passkey-list" aria-label="登録済みのパスキー">
      {passkeys.map((passkey) => (
        <li key={passkey.id}>
          <span>
            {passkey.name}
            {passkey.created_at ? `（${formatDateTime(passkey.created_at)} 登録）` : null}
          </span>
          <button type="button" className="button small" disabled={busy} onClick={() => onRemove(passkey)}>
            削除
          </button>
        </li>
      ))}
    </ul>
  );
}

function Passkeys({ passkeys, onChanged }: { passkeys: Passkey[]; onChanged: () => void }) {
  const [name, setName] = useState('');
  const [done, setDone] = useState('');
  const { busy, message, errors, run } = useFormSubmit();
  const [failure, setFailure] = useState('');
  const { confirm, dialog } = useConfirm();

  const register = async (event: FormEvent) => {
    event.preventDefault();
    setFailure('');
    await run(async () => {
      const { options } = await api<{ options: unknown }>('/api/me/passkeys/options', { method: 'POST' });
      let response: unknown;
      try {
        response = await createPasskey(options);
      } catch (error) {
        setFailure(error instanceof Error ? error.message : 'パスキーを登録できませんでした。');
        return;
      }
      const res = await api<{ message: string }>('/api/me/passkeys', { method: 'POST', body: { response, name } });
      setName('');
      setDone(res.message);
      onChanged();
    });
  };
  const remove = async (passkey: Passkey) => {
    const yes = await confirm({
      title: 'パスキーを削除します',
      confirmLabel: '削除する',
      danger: true,
      body: <p>パスキー「{passkey.name}」を削除します。この端末ではパスキーでサインインできなくなります。</p>,
    });
    if (!yes) return;
    await run(async () => {
      const res = await api<{ message: string }>(`/api/me/passkeys/${passkey.id}`, { method: 'DELETE' });
      setDone(res.message);
      onChanged();
    });
  };

  return (
    <section className="subsection" aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">パスキー</h2>
      <p>指紋・顔認証や端末のロック解除でログインできます。パスキーでのログインは二段階認証を満たします。</p>
      {done ? <Notice>{done}</Notice> : null}
      <PasskeyList passkeys={passkeys} busy={busy} onRemove={(passkey) => void remove(passkey)} />
      {passkeysSupported() ? (
        <form onSubmit={register} noValidate>
          <FormAlert message={failure || message} errors={errors} fields={['name']} />
          <TextInput
            label="パスキーの名前（任意）"
            name="passkey_name"
            value={name}
            message={errors.name}
            onInput={setName}
            placeholder="例：仕事用パソコン"
          />
          <button type="submit" className="button" disabled={busy}>
            パスキーを登録する
          </button>
        </form>
      ) : (
        <p>お使いのブラウザはパスキーに対応していません。</p>
      )}
      <LoadingOverlay show={busy} label="処理しています" />
      {dialog}
    </section>
  );
}

/** /account/security: 二段階認証 (TOTP, recovery codes) and passkeys. Administrators are sent here until they enrol. */
export function SecurityPage() {
  const enrol = useSearchParams()[0].get('enrol') === '1';
  const { users } = useAuth();
  const me = users[0];
  const { data, error, isLoading, mutate } = useSWR<Status>('/api/me/two-factor');
  const [codes, setCodes] = useState<string[] | null>(null);
  const isAdmin = me?.role === 'admin';

  const refresh = async () => {
    await mutate();
    await fetchCurrentUser().catch(() => null);
  };

  return (
    <section className="card narrow">
      <h1>二段階認証とパスキー</h1>
      {enrol && isAdmin && !me?.two_factor_enabled ? (
        <div className="alert" role="alert">
          <p>管理者は二段階認証の設定が必要です。設定が終わるまで管理画面は使えません。</p>
        </div>
      ) : null}
      {isLoading ? <Loading /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data ? (
        <>
          <section className="subsection" aria-labelledby="totp-heading">
            <h2 id="totp-heading">二段階認証（認証アプリ）</h2>
            {codes ? (
              <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />
            ) : data.enabled ? (
              <TwoFactorManage
                remaining={data.recovery_codes_remaining}
                isAdmin={isAdmin}
                onCodes={setCodes}
                onChanged={() => void refresh()}
              />
            ) : (
              <>
                <p>ログインのとき、パスワードに加えて認証アプリの6桁の確認コードを入力します。</p>
                <TwoFactorEnrol
                  onEnabled={(recovery) => {
                    setCodes(recovery);
                    void refresh();
                  }}
                />
              </>
            )}
          </section>
          {data.enabled || !isAdmin ? <Passkeys passkeys={data.passkeys} onChanged={() => void mutate()} /> : null}
        </>
      ) : null}
      <ul className="links">
        {me && !(isAdmin && !me.two_factor_enabled) ? (
          <li>
            <Link to={homeOf(me)}>{isAdmin ? '管理メニューへ' : '会員情報へ戻る'}</Link>
          </li>
        ) : null}
      </ul>
    </section>
  );
}
