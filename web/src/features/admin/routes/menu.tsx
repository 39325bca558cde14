import { Link } from 'react-router';
import { navItems, useLogout } from '../../../app/navigation';

/** The back office beyond the seed's three screens (the navigation bar keeps the seed's). */
const OPERATIONS = [
  { label: '決済の受信箱と照合', to: '/admin/payments' },
  { label: '操作履歴', to: '/admin/audit' },
  { label: '送信に失敗したメール', to: '/admin/mails' },
];

/** /admin: the administrator's menu (a menu page: no navigation bar, its own buttons instead). */
export function AdminMenuPage() {
  const onLogout = useLogout();
  return (
    <section className="card">
      <h1>管理メニュー</h1>
      <ul className="menu">
        {navItems('administrator', undefined).map((item) => (
          <li key={item.to}>
            <Link to={item.to} className="button menu-button">
              {item.label}
            </Link>
          </li>
        ))}
        {OPERATIONS.map((item) => (
          <li key={item.to}>
            <Link to={item.to} className="button menu-button">
              {item.label}
            </Link>
          </li>
        ))}
        <li>
          {/* A server page (bull-board), not an SPA route. */}
          <a href="/admin/queues" className="button menu-button">
            ジョブキュー
          </a>
        </li>
        <li>
          <button type="button" className="button menu-button secondary" onClick={onLogout}>
            ログアウト
          </button>
        </li>
      </ul>
    </section>
  );
}
