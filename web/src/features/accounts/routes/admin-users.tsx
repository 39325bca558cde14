import { type FormEvent, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { mutate } from 'swr';
import { PasswordPair } from '../../../components/password-pair';
import { FormAlert, Info, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { useConfirm } from '../../../components/ui/use-confirm';
import { api, type Schema } from '../../../lib/api';
import { useAuth } from '../../../lib/auth-store';
import { formatDateTime } from '../../../lib/japan-time';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { nameWithKana, profileOf } from '../api/profile';
import { useMember } from '../api/use-member';
import { refreshUserHistory } from '../api/use-user-history';
import { ProfileSummary } from '../components/profile-summary';
import { UserAuditLog } from '../components/user-audit-log';
import { UserMailLog } from '../components/user-mail-log';

/** How long the mail log is read again after asking for a mail (the worker sends it in the background). */
const WATCH_MAILS_MS = 30_000;

/**
 * /admin/users/{id}: the user, (composed by the router) their purchases, the mails sent to them and
 * administrators' actions on them.
 */
export function AdminUserDetailPage({ children }: { children?: React.ReactNode }) {
  const { id } = useParams();
  const flash = (useLocation().state as { message?: string } | null)?.message;
  const { data, error, isLoading, mutate: reload } = useMember(id);
  const [notice, setNotice] = useState('');
  const [watchMailsUntil, setWatchMailsUntil] = useState(0);
  const { confirm, dialog } = useConfirm();
  const { busy, message, run } = useFormSubmit();
  // One's own account: the server refuses to remove one's own administrator rights or delete it.
  const me = useAuth().users[0]?.id;
  const self = Boolean(data && data.user.id === me);
  const resendVerification = () => {
    if (!data) return;
    void run(async () => {
      const res = await api<Schema<'Message'>>(`/api/users/${data.user.id}/verification-mail`, { method: 'POST' });
      setNotice(res.message);
      setWatchMailsUntil(Date.now() + WATCH_MAILS_MS);
      await refreshUserHistory(data.user.id);
    });
  };
  const changeRole = async (role: 'admin' | 'user') => {
    if (!data) return;
    const name = `${data.user.last_name} ${data.user.first_name}`.trim() || data.user.email;
    const yes = await confirm(
      role === 'admin'
        ? {
            title: '管理者にします',
            confirmLabel: '管理者にする',
            body: (
              <p>
                {name}さん（{data.user.email}）を管理者にします。管理画面のすべての操作ができるようになります。
              </p>
            ),
          }
        : {
            title: '管理者権限を外します',
            confirmLabel: '管理者権限を外す',
            danger: true,
            body: (
              <p>
                {name}さん（{data.user.email}）の管理者権限を外します。管理画面は使えなくなります。
              </p>
            ),
          },
    );
    if (!yes) return;
    void run(async () => {
      const res = await api<Schema<'Message'>>(`/api/users/${data.user.id}/role`, { method: 'PUT', body: { role } });
      setNotice(res.message);
      await Promise.all([reload(), refreshUserHistory(data.user.id)]);
    });
  };
  return (
    <section className="card">
      <h1>ユーザー詳細</h1>
      {flash ? <Notice>{flash}</Notice> : null}
      {notice ? <Notice>{notice}</Notice> : null}
      <FormAlert message={message} />
      {isLoading ? <Loading /> : null}
      {error ? <LoadError error={error} onRetry={() => void reload()} /> : null}
      {data ? (
        <>
          <ProfileSummary values={profileOf(data.user)} pendingEmail={data.user.pending_email}>
            <dt>権限</dt>
            <dd>{data.user.role === 'admin' ? '管理者' : '一般会員'}</dd>
            <dt>最終ログイン</dt>
            <dd>{data.user.last_sign_in_at ? formatDateTime(data.user.last_sign_in_at) : '記録なし'}</dd>
            <dt>メールアドレスの確認</dt>
            <dd>
              {data.user.email_verified ? (
                '確認済み'
              ) : (
                <>
                  未確認（確認メールのリンクがまだ開かれていません）
                  <button type="button" className="button small" disabled={busy} onClick={resendVerification}>
                    確認メールを再送する
                  </button>
                </>
              )}
            </dd>
          </ProfileSummary>
          <div className="actions">
            <Link to="/admin/users" className="button">
              一覧へ戻る
            </Link>
            <Link to={`/admin/users/${data.user.id}/edit`} className="button">
              編集する
            </Link>
            <Link to={`/admin/users/${data.user.id}/password`} className="button">
              パスワードを変更する
            </Link>
            {data.user.role === 'admin' ? (
              <button
                type="button"
                className="button"
                disabled={busy || self}
                aria-describedby={self ? 'self-limits' : undefined}
                onClick={() => void changeRole('user')}
              >
                管理者権限を外す
              </button>
            ) : (
              <button type="button" className="button" disabled={busy} onClick={() => void changeRole('admin')}>
                管理者にする
              </button>
            )}
            {self ? (
              <button type="button" className="button secondary" disabled aria-describedby="self-limits">
                削除する
              </button>
            ) : (
              <Link to={`/admin/users/${data.user.id}/delete`} className="button secondary">
                削除する
              </Link>
            )}
          </div>
          {self ? (
            <p id="self-limits" className="small">
              {SELF_LIMITS}
            </p>
          ) : null}
          <LoadingOverlay show={busy} label="処理しています" />
          {children}
          <UserMailLog userId={data.user.id} watchUntil={watchMailsUntil} />
          <UserAuditLog userId={data.user.id} />
        </>
      ) : null}
      {dialog}
    </section>
  );
}

/** Why an administrator's own page offers no 管理者権限を外す or 削除する. */
const SELF_LIMITS =
  'ご自身の管理者権限を外すことや、ご自身のアカウントを削除することはできません。必要なときは、ほかの管理者に依頼してください。';

/** /admin/users/{id}/password: the administrator sets a new password; the user is signed out everywhere. */
export function AdminUserPasswordPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const [values, setValues] = useState({ new_password: '', new_password_confirmation: '' });
  const { busy, message, errors, run } = useFormSubmit();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      const res = await api<Schema<'Message'>>(`/api/users/${id}/password/force`, { method: 'PUT', body: values });
      navigate(`/admin/users/${id}`, { state: { message: res.message } });
    });
  };
  return (
    <section className="card narrow">
      <h1>パスワードの強制変更</h1>
      <p>
        新しいパスワードを設定すると、このユーザーはすべての端末でログアウトされます。新しいパスワードは本人に安全な方法でお伝えください。
      </p>
      <FormAlert message={message} errors={errors} fields={Object.keys(values)} />
      <form onSubmit={submit} noValidate>
        <PasswordPair
          names={['new_password', 'new_password_confirmation']}
          values={values}
          errors={errors}
          onChange={(next) => setValues({ ...values, ...next })}
        />
        <div className="actions">
          <Link to={`/admin/users/${id}`} className="button">
            キャンセル
          </Link>
          <button type="submit" className="button primary" disabled={busy}>
            パスワードを変更する
          </button>
        </div>
      </form>
      <LoadingOverlay show={busy} label="変更しています" />
    </section>
  );
}

/** /admin/users/{id}/delete: a confirmation before deleting an account. */
export function AdminUserDeletePage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { data, error } = useMember(id);
  const me = useAuth().users[0]?.id;
  const { busy, message, errors, run } = useFormSubmit();
  const remove = () =>
    run(async () => {
      const res = await api<Schema<'Message'>>(`/api/users/${id}/force`, { method: 'DELETE' });
      await mutate((key) => typeof key === 'string' && key.startsWith('/api/users'), undefined, { revalidate: true });
      navigate('/admin/users', { replace: true, state: { message: res.message } });
    });
  return (
    <section className="card narrow">
      <h1>ユーザーの削除</h1>
      {error ? <LoadError error={error} /> : null}
      {data && data.user.id === me ? (
        <>
          <Info>{SELF_LIMITS}</Info>
          <div className="actions">
            <Link to={`/admin/users/${id}`} className="button">
              ユーザー詳細へ戻る
            </Link>
          </div>
        </>
      ) : null}
      {data && data.user.id !== me ? (
        <>
          <p>
            <strong>
              {nameWithKana(data.user)}（{data.user.email}）
            </strong>
            を削除します。
          </p>
          <ul>
            <li>このユーザーはログアウトされ、ログインできなくなります。</li>
            <li>購入履歴（売上）は経理のために購入時の氏名・メールアドレスとともに残ります。</li>
            <li>この操作は取り消せません。</li>
          </ul>
          <FormAlert message={message} errors={errors} />
          <div className="actions">
            <Link to={`/admin/users/${id}`} className="button">
              キャンセル
            </Link>
            <button type="button" className="button danger" onClick={() => void remove()} disabled={busy}>
              削除する
            </button>
          </div>
        </>
      ) : null}
      <LoadingOverlay show={busy} label="削除しています" />
    </section>
  );
}
