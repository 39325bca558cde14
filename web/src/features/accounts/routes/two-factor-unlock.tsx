import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { Loading } from '../../../components/ui/load-state';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { unlockTwoFactor, useUnlockLink } from '../api/links';

/** GET /api/two-factor/unlock/{token}: whether the mailed link still works, and if not why. */

/**
 * The link mailed after three two-factor lock-outs in a row. Opening it changes nothing (a mail
 * scanner may open it too); the button does, once.
 */
export function TwoFactorUnlockPage() {
  const { token = '' } = useParams();
  const [done, setDone] = useState('');
  const { busy, message, errors, run } = useFormSubmit();
  const link = useUnlockLink(token);
  const unlock = () =>
    run(async () => {
      setDone((await unlockTwoFactor({ token })).message);
    });
  const dead = link.data && link.data.state !== 'valid' ? link.data.message : null;
  return (
    <section className="card narrow">
      <h1>確認コードによるログインの再開</h1>
      {done ? (
        <>
          <Notice>{done}</Notice>
          <p>
            <Link to="/login" className="button primary">
              ログイン画面へ
            </Link>
          </p>
        </>
      ) : dead ? (
        <>
          <div className="alert" role="alert">
            <p>{dead}</p>
          </div>
          <p>
            <Link to="/forgot-password" className="button primary">
              パスワードを再設定する
            </Link>
          </p>
        </>
      ) : !link.data && !link.error ? (
        <Loading label="リンクを確認しています…" />
      ) : (
        <>
          <FormAlert message={message} errors={errors} fields={['token']} />
          <p>
            確認コードの誤りが続いたため、確認コードによるログインを停止しています。ご自身の操作だった場合は、下のボタンで再開できます。
          </p>
          <p>
            お心当たりのない場合は、再開せずにパスワードを再設定してください。第三者がパスワードを知っている可能性があります。
          </p>
          <p className="actions">
            <button type="button" className="button primary" disabled={busy} onClick={() => void unlock()}>
              ログインを再開する
            </button>
            <Link to="/forgot-password" className="button">
              パスワードを再設定する
            </Link>
          </p>
        </>
      )}
    </section>
  );
}
