import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { fetchCurrentUser, useAuth } from '../../../lib/auth-store';
import { isStaff } from '../../../lib/permissions';
import { homeOf } from '../../../lib/user-home';
import { useTwoFactorStatus } from '../api/security';
import { PasskeySection } from '../components/passkey-section';
import { RecoveryCodes } from '../components/recovery-codes';
import { TwoFactorEnrol } from '../components/two-factor-enrol';
import { TwoFactorManage } from '../components/two-factor-manage';

/** /account/security: 二段階認証 (TOTP, recovery codes) and passkeys. Administrators are sent here until they enrol. */
export function SecurityPage() {
  const enrol = useSearchParams()[0].get('enrol') === '1';
  const { users } = useAuth();
  const me = users[0];
  const { data, error, isLoading, mutate } = useTwoFactorStatus();
  const [codes, setCodes] = useState<string[] | null>(null);
  const isAdmin = Boolean(me && isStaff(me));

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
          {data.enabled || !isAdmin ? (
            <PasskeySection passkeys={data.passkeys} twoFactor={data.enabled} onChanged={() => void mutate()} />
          ) : null}
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
