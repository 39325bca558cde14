import { useState } from 'react';
import { Link } from 'react-router';
import { useConfirm } from '../../../components/ui/use-confirm';
import { api } from '../../../lib/api';
import { formatDateTime } from '../../../lib/japan-time';
import { ROLE_LABELS, type Role, useCan } from '../../../lib/permissions';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { type Member, profileOf } from '../api/profile';
import { refreshUserHistory } from '../api/use-user-history';
import { ProfileSummary } from './profile-summary';

/** How long the mail log is read again after asking for a mail (the worker sends it in the background). */
const WATCH_MAILS_MS = 30_000;

/** Why an administrator's own page offers no role change or 削除する. */
export const SELF_LIMITS =
  'ご自身の役割を変えることや、ご自身のアカウントを削除することはできません。必要なときは、ほかの管理者に依頼してください。';

const ROLE_NOTES: Record<Role, string> = {
  admin: '管理画面のすべての操作ができるようになります。',
  operator:
    '売上・決済・メール・エクスポートの操作ができるようになります（会員の CSV、削除、役割、ライセンスの編集はできません）。',
  viewer: '管理画面の一覧と詳細を見ることだけができるようになります。',
  user: '管理画面は使えなくなります。',
};

/** The question before changing a user's role. */
function roleQuestion(role: Role, user: Member) {
  const name = `${user.last_name} ${user.first_name}`.trim() || user.email;
  return {
    title: `役割を「${ROLE_LABELS[role]}」に変更します`,
    confirmLabel: '変更する',
    danger: role === 'user',
    body: (
      <p>
        {name}さん（{user.email}）の役割を「{ROLE_LABELS[role]}」にします。{ROLE_NOTES[role]}
        このユーザーはすべての端末でログアウトされます。
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
  const changeRole = async (role: Role) => {
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
  const can = useCan();
  return (
    <ProfileSummary values={profileOf(user)} pendingEmail={user.pending_email}>
      <dt>役割</dt>
      <dd>{ROLE_LABELS[user.role]}</dd>
      <dt>最終ログイン</dt>
      <dd>{user.last_sign_in_at ? formatDateTime(user.last_sign_in_at) : '記録なし'}</dd>
      <dt>メールアドレスの確認</dt>
      <dd>
        {user.email_verified ? (
          '確認済み'
        ) : (
          <>
            未確認（確認メールのリンクがまだ開かれていません）
            {can('members:mail') ? (
              <button type="button" className="button small" disabled={busy} onClick={onResend}>
                確認メールを再送する
              </button>
            ) : null}
          </>
        )}
      </dd>
    </ProfileSummary>
  );
}

/** The user page's buttons, only those the signed-in role may use; one's own account offers no role change or 削除する. */
export function AdminUserButtons({ user, self }: { user: Member; self: boolean }) {
  const can = useCan();
  return (
    <div className="actions">
      <Link to="/admin/users" className="button">
        一覧へ戻る
      </Link>
      {can('members:update') ? (
        <Link to={`/admin/users/${user.id}/edit`} className="button">
          編集する
        </Link>
      ) : null}
      {can('members:set-password') ? (
        <Link to={`/admin/users/${user.id}/password`} className="button">
          パスワードを変更する
        </Link>
      ) : null}
      {!can('members:delete') ? null : self ? (
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

/** 役割: a select and a button, for administrators (members:set-role); not on one's own page. */
export function RoleForm({
  user,
  busy,
  self,
  onChange,
}: {
  user: Member;
  busy: boolean;
  self: boolean;
  onChange: (role: Role) => void;
}) {
  const can = useCan();
  const [role, setRole] = useState<Role>(user.role);
  if (!can('members:set-role')) return null;
  return (
    <form
      className="inline-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (role !== user.role) onChange(role);
      }}
    >
      <label htmlFor="user-role">役割</label>
      <select
        id="user-role"
        value={role}
        disabled={busy || self}
        aria-describedby={self ? 'self-limits' : undefined}
        onChange={(event) => setRole(event.target.value as Role)}
      >
        {(Object.keys(ROLE_LABELS) as Role[]).map((value) => (
          <option key={value} value={value}>
            {ROLE_LABELS[value]}
          </option>
        ))}
      </select>
      <button type="submit" className="button" disabled={busy || self || role === user.role}>
        役割を変更する
      </button>
    </form>
  );
}
