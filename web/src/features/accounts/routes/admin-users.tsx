import { type FormEvent, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { mutate } from 'swr';
import { NotesTimeline } from '../../../components/notes-timeline';
import { PasswordPair } from '../../../components/password-pair';
import { FormAlert, Info, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { api, type Schema } from '../../../lib/api';
import { useAuth } from '../../../lib/auth-store';
import { useCan } from '../../../lib/permissions';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { nameWithKana } from '../api/profile';
import { useMember } from '../api/use-member';
import { AdminUserButtons, AdminUserFacts, RoleForm, SELF_LIMITS, useAdminUserActions } from '../components/admin-user-actions';
import { UserAuditLog } from '../components/user-audit-log';
import { UserMailLog } from '../components/user-mail-log';

/**
 * /admin/users/{id}: the user, (composed by the router) their purchases, the mails sent to them and
 * administrators' actions on them.
 */
export function AdminUserDetailPage({ children }: { children?: React.ReactNode }) {
  const { id } = useParams();
  const flash = (useLocation().state as { message?: string } | null)?.message;
  const { data, error, isLoading, mutate: reload } = useMember(id);
  const actions = useAdminUserActions(data?.user, reload);
  const can = useCan();
  const { busy } = actions;
  // One's own account: the server refuses to remove one's own administrator rights or delete it.
  const me = useAuth().users[0]?.id;
  const self = Boolean(data && data.user.id === me);
  return (
    <section className="card">
      <h1>ユーザー詳細</h1>
      {flash ? <Notice>{flash}</Notice> : null}
      {actions.notice ? <Notice>{actions.notice}</Notice> : null}
      <FormAlert message={actions.message} />
      {isLoading ? <Loading /> : null}
      {error ? <LoadError error={error} onRetry={() => void reload()} /> : null}
      {data ? (
        <>
          <AdminUserFacts user={data.user} busy={busy} onResend={actions.resendVerification} />
          <AdminUserButtons user={data.user} self={self} />
          <RoleForm
            key={data.user.role}
            user={data.user}
            busy={busy}
            self={self}
            onChange={(role) => void actions.changeRole(role)}
          />
          {self ? (
            <p id="self-limits" className="small">
              {SELF_LIMITS}
            </p>
          ) : null}
          <LoadingOverlay show={busy} label="処理しています" />
          <NotesTimeline path={`/api/users/${data.user.id}/notes`} subject="この会員" canAdd={can('members:update')} />
          {children}
          <UserMailLog userId={data.user.id} watchUntil={actions.watchMailsUntil} />
          <UserAuditLog userId={data.user.id} />
        </>
      ) : null}
      {actions.dialog}
    </section>
  );
}

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
