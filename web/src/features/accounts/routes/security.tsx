import QRCode from 'qrcode';
import { type FormEvent, useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import useSWR from 'swr';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { TextInput } from '../../../components/ui/text-input';
import { useConfirm } from '../../../components/ui/use-confirm';
import { api } from '../../../lib/api';
import { fetchCurrentUser, useAuth } from '../../../lib/auth-store';
import { formatDateTime } from '../../../lib/japan-time';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { homeOf } from '../../../lib/user-home';
import { createPasskey, passkeysSupported } from '../../../lib/webauthn';

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

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <div className="subsection">
      <h2>リカバリーコード</h2>
      <Notice>
        認証アプリを使えなくなったときに、確認コードの代わりに使えます。各コードは1回だけ使えます。印刷するか、パスワード管理ツールなど安全な場所に保存してください。この画面を閉じると再表示できません。
      </Notice>
      <ol className="recovery-codes" aria-label="リカバリーコード">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <button type="button" className="button primary" onClick={onDone}>
        保存しました
      </button>
    </div>
  );
}

/** Setup: the password, then a QR code (and the secret for manual entry), then the first code. */
function Enrol({ onEnabled }: { onEnabled: (codes: string[]) => void }) {
  const [password, setPassword] = useState('');
  const [setup, setSetup] = useState<{ totp_uri: string; secret: string } | null>(null);
  const [qr, setQr] = useState('');
  const [code, setCode] = useState('');
  const { busy, message, errors, run } = useFormSubmit();

  useEffect(() => {
    if (!setup) return;
    QRCode.toDataURL(setup.totp_uri, { margin: 1, width: 220 })
      .then(setQr)
      .catch(() => setQr(''));
  }, [setup]);

  const start = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      setSetup(await api('/api/me/two-factor/setup', { method: 'POST', body: { password } }));
      setPassword('');
    });
  };
  const enable = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      const res = await api<{ recovery_codes: string[] }>('/api/me/two-factor/enable', { method: 'POST', body: { code } });
      onEnabled(res.recovery_codes);
    });
  };

  if (!setup) {
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
  return (
    <form onSubmit={enable} noValidate>
      <ol className="steps">
        <li>Google Authenticator や Microsoft Authenticator などの認証アプリで、次のQRコードを読み取ってください。</li>
        <li>読み取れない場合は、認証アプリに次のキーを手動で入力してください（時間ベース、6桁）。</li>
        <li>認証アプリに表示された6桁の確認コードを入力して「有効にする」を押してください。</li>
      </ol>
      {qr ? (
        <img className="totp-qr" src={qr} alt="認証アプリ登録用のQRコード" width={220} height={220} />
      ) : (
        <Loading label="QRコードを作成しています…" />
      )}
      <p>
        手動入力用のキー：<code className="totp-secret">{setup.secret}</code>
      </p>
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

function Manage({
  status,
  isAdmin,
  onCodes,
  onChanged,
}: {
  status: Status;
  isAdmin: boolean;
  onCodes: (codes: string[]) => void;
  onChanged: () => void;
}) {
  const [password, setPassword] = useState('');
  const [offPassword, setOffPassword] = useState('');
  const [offCode, setOffCode] = useState('');
  const renew = useFormSubmit();
  const off = useFormSubmit();
  const [done, setDone] = useState('');

  const regenerate = async (event: FormEvent) => {
    event.preventDefault();
    await renew.run(async () => {
      const res = await api<{ recovery_codes: string[] }>('/api/me/two-factor/recovery-codes', {
        method: 'POST',
        body: { password },
      });
      setPassword('');
      onCodes(res.recovery_codes);
    });
  };
  const disable = async (event: FormEvent) => {
    event.preventDefault();
    await off.run(async () => {
      const res = await api<{ message: string }>('/api/me/two-factor', {
        method: 'DELETE',
        body: { password: offPassword, code: offCode },
      });
      setDone(res.message);
      setOffPassword('');
      setOffCode('');
      onChanged();
    });
  };

  return (
    <>
      {done ? <Notice>{done}</Notice> : null}
      <p>
        二段階認証は<strong>有効</strong>です。
        {status.recovery_codes_remaining !== null ? `未使用のリカバリーコード：${status.recovery_codes_remaining}個` : null}
      </p>
      <form onSubmit={regenerate} noValidate className="subsection">
        <h3>リカバリーコードの再発行</h3>
        <p>新しいコードを発行すると、これまでのコードは使えなくなります。</p>
        <FormAlert message={renew.message} errors={renew.errors} fields={['password']} />
        <TextInput
          label="現在のパスワード"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          message={renew.errors.password}
          onInput={setPassword}
        />
        <button type="submit" className="button" disabled={renew.busy}>
          リカバリーコードを再発行する
        </button>
      </form>
      {isAdmin ? (
        <p className="subsection">管理者のアカウントでは、二段階認証を無効にできません。</p>
      ) : (
        <form onSubmit={disable} noValidate className="subsection">
          <h3>二段階認証を無効にする</h3>
          <FormAlert message={off.message} errors={off.errors} fields={['password', 'code']} />
          <TextInput
            label="現在のパスワード"
            name="off_password"
            type="password"
            autoComplete="current-password"
            required
            value={offPassword}
            message={off.errors.password}
            onInput={setOffPassword}
          />
          <TextInput
            label="確認コード"
            name="off_code"
            autoComplete="one-time-code"
            required
            value={offCode}
            message={off.errors.code}
            onInput={setOffCode}
          />
          <button type="submit" className="button danger" disabled={off.busy}>
            無効にする
          </button>
        </form>
      )}
      <LoadingOverlay show={renew.busy || off.busy} label="処理しています" />
    </>
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
      {passkeys.length === 0 ? (
        <p>登録済みのパスキーはありません。</p>
      ) : (
        <ul className="passkey-list" aria-label="登録済みのパスキー">
          {passkeys.map((passkey) => (
            <li key={passkey.id}>
              <span>
                {passkey.name}
                {passkey.created_at ? `（${formatDateTime(passkey.created_at)} 登録）` : null}
              </span>
              <button type="button" className="button small" disabled={busy} onClick={() => void remove(passkey)}>
                削除
              </button>
            </li>
          ))}
        </ul>
      )}
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
              <Manage status={data} isAdmin={isAdmin} onCodes={setCodes} onChanged={() => void refresh()} />
            ) : (
              <>
                <p>ログインのとき、パスワードに加えて認証アプリの6桁の確認コードを入力します。</p>
                <Enrol
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
