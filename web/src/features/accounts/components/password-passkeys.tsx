import { LoadError } from '../../../components/ui/load-state';
import { usePasskeys } from '../api/security';
import { PasskeyList } from './passkey-list';

/**
 * On the password change screen: a new password leaves the passkeys signing in, so the member sees
 * which exist and removes one they do not know (someone who had the account may have added it).
 */
export function PasswordPasskeys() {
  const { data, error, mutate } = usePasskeys();
  if (error) return <LoadError error={error} onRetry={() => void mutate()} />;
  if (!data) return null;
  return (
    <section className="subsection" aria-labelledby="password-passkeys-heading">
      <h2 id="password-passkeys-heading">登録済みのパスキー</h2>
      <p>パスワードを変更しても、パスキーは引き続きログインに使えます。お心当たりのないパスキーがあれば削除してください。</p>
      <PasskeyList passkeys={data.passkeys} onChanged={() => void mutate()} />
    </section>
  );
}
