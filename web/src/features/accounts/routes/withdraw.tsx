import { type FormEvent, type ReactNode, useState } from 'react';
import { Link, useParams } from 'react-router';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { TextInput } from '../../../components/ui/text-input';
import { fetchCurrentUser } from '../../../lib/auth-store';
import { isStaff } from '../../../lib/permissions';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { useMember, withdraw } from '../api/use-member';

/** What 退会 erases and what it keeps, as the personal-information law (APPI) expects a member to be told. */
function WhatHappens() {
  return (
    <>
      <h2>削除される情報</h2>
      <ul>
        <li>会員情報（氏名、メールアドレス、所属・所属名、メールでのご案内の設定）</li>
        <li>パスワードなどのログイン情報と、すべての端末でのログイン状態</li>
        <li>メールアドレス変更やパスワード再設定など、手続き中のリンク</li>
      </ul>
      <h2>保管される情報</h2>
      <ul>
        <li>
          ご購入の記録（ライセンス名、金額、決済日時と、購入時の氏名・メールアドレス・所属の控え）。法令で定められた帳簿・請求書類の保存のため、経理上の記録として保管し、それ以外の目的には使いません。
        </li>
        <li>退会の手続きの記録（日時とメールアドレス。ご本人による手続きだったことを確かめるため）</li>
        <li>これまでにお送りしたメールの送信記録（宛先のメールアドレス、件名、送信日時）</li>
      </ul>
      <p>退会するとすぐにログアウトされ、元に戻すことはできません。退会の完了は、ご登録のメールアドレスにお知らせします。</p>
    </>
  );
}

/** The goodbye: done, and where one may go next. */
function Withdrawn({ message }: { message: string }) {
  return (
    <section className="card narrow">
      <h1>退会の手続きが完了しました</h1>
      <Notice>{message}</Notice>
      <ul className="links">
        <li>
          <Link to="/ctoms">トレーニングライセンスのご案内へ</Link>
        </li>
        <li>
          <Link to="/users/registration">新規会員登録</Link>
        </li>
      </ul>
    </section>
  );
}

function AdminCannotWithdraw({ id }: { id: string }) {
  return (
    <>
      <p>
        管理者のアカウントは、この画面からは退会できません。別の管理者に管理者権限を外してもらうか、アカウントの削除を依頼してください。
      </p>
      <p>
        <Link to={`/users/${id}`}>会員情報へ戻る</Link>
      </p>
    </>
  );
}

/** /users/{id}/withdraw: 退会 with the current password; `children`: the receipts to download first. */
export function WithdrawPage({ children }: { children?: ReactNode }) {
  const { id = '' } = useParams();
  const { data, error, isLoading, mutate } = useMember(id);
  const [password, setPassword] = useState('');
  const [done, setDone] = useState('');
  const { busy, message, errors, run } = useFormSubmit();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      const res = await withdraw(id, { password });
      setPassword('');
      setDone(res.message);
      // The session is gone: the header and the page cache forget the member.
      await fetchCurrentUser().catch(() => null);
    });
  };

  if (done) return <Withdrawn message={done} />;

  return (
    <section className="card narrow">
      <h1>退会</h1>
      {isLoading ? <Loading /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data && isStaff(data.user) ? <AdminCannotWithdraw id={id} /> : null}
      {data && !isStaff(data.user) ? (
        <>
          <p>
            <strong className="latin-break">{data.user.email}</strong> のアカウントを削除します。
          </p>
          {children}
          <WhatHappens />
          <FormAlert message={message} errors={errors} fields={['password']} />
          <form onSubmit={submit} noValidate>
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
            <div className="actions">
              <Link to={`/users/${id}`} className="button">
                キャンセル
              </Link>
              <button type="submit" className="button danger" disabled={busy}>
                退会する
              </button>
            </div>
          </form>
        </>
      ) : null}
      <LoadingOverlay show={busy} label="退会の手続きをしています" />
    </section>
  );
}
