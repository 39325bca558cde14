import { Link } from 'react-router';
import { formatDateTime } from '../../../lib/japan-time';
import { ROLE_LABELS } from '../../../lib/permissions';
import { affiliationLabel } from '../api/profile';
import type { UserPage } from '../api/use-user-search';

type User = UserPage['users'][number];

function UserRow({ user }: { user: User }) {
  return (
    <tr>
      <td>
        <Link to={`/admin/users/${user.id}`}>{`${user.last_name} ${user.first_name}`.trim() || '（未設定）'}</Link>
        {user.role !== 'user' ? <span className="tag">{ROLE_LABELS[user.role]}</span> : null}
        <span className="kana">{`${user.last_name_kana ?? ''} ${user.first_name_kana ?? ''}`.trim() || 'フリガナ未登録'}</span>
      </td>
      <td className="latin-break">{user.email}</td>
      <td>{user.affiliations ? affiliationLabel(user.affiliations) : '—'}</td>
      <td>{user.affiliation_name || '—'}</td>
      <td>{user.created_at ? formatDateTime(user.created_at) : '—'}</td>
      <td>{user.last_sign_in_at ? formatDateTime(user.last_sign_in_at) : '記録なし'}</td>
      <td>{user.purchase_count.toLocaleString('ja-JP')}回</td>
      <td>{user.paid_total.toLocaleString('ja-JP')}円</td>
      <td>{user.last_purchase_at ? formatDateTime(user.last_purchase_at) : '購入なし'}</td>
    </tr>
  );
}

/** The users of one page: name and kana, e-mail, affiliation, registered, last signed in, purchases (refunds left out). */
export function UserTable({ users }: { users: User[] }) {
  return (
    <div className="table-wrap">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">氏名</th>
            <th scope="col">メールアドレス</th>
            <th scope="col">所属</th>
            <th scope="col">所属名</th>
            <th scope="col">登録日時</th>
            <th scope="col">最終ログイン</th>
            <th scope="col">購入回数</th>
            <th scope="col">購入金額</th>
            <th scope="col">最終購入</th>
          </tr>
        </thead>
        <tbody>
          {users.map((user) => (
            <UserRow key={user.id} user={user} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
