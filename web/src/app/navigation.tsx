import type { ComponentType } from 'react';
import { NavLink, useNavigate } from 'react-router';
import { licenseDrafts } from '../features/licenses/api/license-draft';
import { logout, useAuth } from '../lib/auth-store';
import type { RouteType } from './route-meta';

interface NavItem {
  label: string;
  to: string;
}

export function navItems(type: RouteType, userId: string | undefined): NavItem[] {
  if (type === 'administrator') {
    return [
      { label: 'ユーザー一覧', to: '/admin/users' },
      { label: 'ライセンス一覧', to: '/admin/licenses' },
      { label: 'ライセンス発行', to: '/admin/licenses/issue' },
    ];
  }
  if (type === 'endUser') {
    return [
      { label: '会員情報・購入履歴', to: `/users/${userId ?? ''}` },
      { label: 'ライセンス一覧', to: '/licenses' },
      { label: '特定商取引法に基づく表記', to: '/specified_commercial_transactions_law' },
    ];
  }
  return [];
}

/** Logs out (seed §4): the call completes, the state resets, then /logout. */
export function useLogout() {
  const navigate = useNavigate();
  return async () => {
    try {
      await logout();
    } finally {
      // Nothing typed stays in this browser after signing out (a shared PC at a fire station).
      await licenseDrafts.forgetAll().catch(() => undefined);
      navigate('/logout', { replace: true, state: { signedOut: true } });
    }
  };
}

export function NavigationBar({ type }: { type: RouteType }) {
  const { users } = useAuth();
  const onLogout = useLogout();
  return (
    <nav className="nav" aria-label={type === 'administrator' ? '管理メニュー' : '会員メニュー'}>
      <ul>
        {navItems(type, users[0]?.id).map((item) => (
          <li key={item.to}>
            <NavLink to={item.to} end>
              {item.label}
            </NavLink>
          </li>
        ))}
        <li>
          <button type="button" className="link-button" onClick={onLogout}>
            ログアウト
          </button>
        </li>
      </ul>
    </nav>
  );
}

/** The administrator's menu screen with the navigation's links and log-out handed in. */
export function AdminMenuRoute({ page: Page }: { page: ComponentType<{ items: NavItem[]; onLogout: () => void }> }) {
  const onLogout = useLogout();
  return <Page items={navItems('administrator', undefined)} onLogout={onLogout} />;
}
