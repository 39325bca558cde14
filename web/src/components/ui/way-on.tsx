import { Link, useLocation } from 'react-router';
import { useAuth } from '../../lib/auth-store';
import { isStaff } from '../../lib/permissions';

/**
 * Where to go from a page that cannot be shown: the catalogue and the member's own page when signed
 * in (the back office for an administrator), the sign-in page otherwise; from a back-office page,
 * the back office only.
 */
export function WayOn() {
  const user = useAuth().users[0];
  const inBackOffice = useLocation().pathname.startsWith('/admin');
  if (user && isStaff(user) && inBackOffice) {
    return (
      <nav aria-label="ほかのページへ" className="way-on">
        <ul>
          <li>
            <Link to="/admin">管理メニューへ</Link>
          </li>
        </ul>
      </nav>
    );
  }
  return (
    <nav aria-label="ほかのページへ" className="way-on">
      <ul>
        {user ? (
          <>
            {isStaff(user) ? (
              <li>
                <Link to="/admin">管理メニューへ</Link>
              </li>
            ) : null}
            <li>
              <Link to="/licenses">ライセンス一覧へ</Link>
            </li>
            <li>
              <Link to={`/users/${user.id}`}>会員情報・購入履歴へ</Link>
            </li>
          </>
        ) : (
          <li>
            <Link to="/login">ログイン画面へ</Link>
          </li>
        )}
        <li>
          <Link to="/contact">お問い合わせ</Link>
        </li>
      </ul>
    </nav>
  );
}
