import { useState } from 'react';
import { Link } from 'react-router';
import { useConfirm } from '../../../components/ui/use-confirm';
import { api } from '../../../lib/api';
import { formatDateTime } from '../../../lib/japan-time';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { type Member, profileOf } from '../api/profile';
import { refreshUserHistory } from '../api/use-user-history';
import { ProfileSummary } from './profile-summary';

/** How long the mail log is read again after asking for a mail (the worker sends it in the background). */
const WATCH_MAILS_MS = 30_000;

/** Why an administrator's own page offers no 管理者権限を外す or 削除する. */
export const SELF_LIMITS =
  'ご自身の管理者権限を外すことや、ご自身のアカウントを削除することはできません。必要なときは、ほかの管理者に依頼してください。';

/** The question before granting or revoking administrator rights. */
function roleQuestion(role: 'admin' | 'user', user: Member) {
  const name = `${user.last_name} ${user.first_name}`.trim() || user.email;
  return role === 'admin'
    ? {
        title: '管理者にします',
        confirmLabel: '管理者にする',
        body: (
          <p>
            {name}さん（{user.email}）を管理者にします。管理画面のすべての操作ができるようになります。
          </p>
        ),
      }
    : {
        title: '管理者権限を外します',
        confirmLabel: '管理者権限を外す',
        danger: true,
        body: (
          <p>
            {name}さん（{user.email}）の管理者権限を外します。管理画面は使えなくなります。
          </p>
        ),
      };
}

/** The user page's actions: resend the verification mail, grant or revoke administrator rights. */
export function useAdminUserActions(user: Member | undefined, reload: () => Promise<unknown>) {
  const [notice, setNotice] = useState('');
  const [watchMailsUntil, setWatchMailsUntil] = useState(0);
  const { confirm, dialog } = useConfirm();
  const { busy, message, run } = useFormSubmit();
  const resendVerification = () => {
    if (!user) return;
    void run(async () => {
      const res = await api<{ message: string }>(`/api/users/${user.id}/verification-mail`, { method: 'POST' });
      setNotice(res.message);
      setWatchMailsUntil(Date.now() + WATCH_MAILS_MS);
      await refreshUserHistory(user.id);
    });
  };
  const changeRole = async (role: 'admin' | 'user') => {
    if (!user) return;
    if (!(await confirm(roleQuestion(role, user)))) return;
    void run(async () => {
      const res = await api<{ message: string }>(`/api/users/${user.id}/role`, { method: 'PUT', body: { role } });
      setNotice(res.message);
      await Promise.all([reload(), refreshUserHistory(user.id)]);
    });
  };
  return { notice, watchMailsUntil, dialog, busy, message, resendVerification, changeRole };
}

/** The user's profile with what only administrators see: role, last sign-in, the address's state. */
export function AdminUserFacts({ user, busy, onResend }: { user: Member; busy: boolean; onResend: () => void }) {
  return (
    <ProfileSummary values={profileOf(user)} pendingEmail={user.pending_email}>
      <dt>権限</dt>
      <dd>{user.role === 'admin' ? '管理者' : '一般会員'}</dd>
      <dt>最終ログイン</dt>
      <dd>{user.last_sign_in_at ? formatDateTime(user.last_sign_in_at) : '記録なし'}</dd>
      <dt>メールアドレスの確認</dt>
      <dd>
        {user.email_verified ? (
          '確認済み'
        ) : (
          <>
            未確認（確認メールのリンクがまだ開かれていません）
            <button type="button" className="button small" disabled={busy} onClick={onResend}>
              確認メールを再送する
            </button>
          </>
        )}
      </dd>
    </ProfileSummary>
  );
}

/** The user page's buttons; one's own account offers no 管理者権限を外す or 削除する (the server refuses them). */
export function AdminUserButtons({
  user,
  busy,
  self,
  onChangeRole,
}: {
  user: Member;
  busy: boolean;
  self: boolean;
  onChangeRole: (role: 'admin' | 'user') => void;
}) {
  return (
    <div className="actions">
      <Link to="/admin/users" className="button">
        一覧へ戻る
      </Link>
      <Link to={`/admin/users/${user.id}/edit`} className="button">
        編集する
      </Link>
      <Link to={`/admin/users/${user.id}/password`} className="button">
        パスワードを変更する
      </Link>
      {user.role === 'admin' ? (
        <button
          type="button"
          className="button"
          disabled={busy || self}
          aria-describedby={self ? 'self-limits' : undefined}
          onClick={() => onChangeRole('user')}
        >
          管理者権限を外す
        </button>
      ) : (
        <button type="button" className="button" disabled={busy} onClick={() => onChangeRole('admin')}>
          管理者にする
        </button>
      )}
      {self ? (
        <button type="button" className="button secondary" disabled aria-describedby="self-limits">
          削除する
        </button>
      ) : (
        <Link to={`/admin/users/${user.id}/delete`} className="button secondary">
          削除する
        </Link>
      )}
    </div>
  );
}
