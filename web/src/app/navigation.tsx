import { type ComponentType, type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { Link, NavLink, useLocation, useNavigate } from 'react-router';
import { licenseDrafts } from '../features/licenses/api/license-draft';
import { type CurrentUser, logout, useAuth } from '../lib/auth-store';
import { userMay } from '../lib/permissions';
import { ADMIN_NAV, ADMIN_NAV_GROUPS, type AdminNavItem, currentAdminItem } from './admin-nav';
import type { RouteType } from './route-meta';

interface NavItem {
  label: string;
  to: string;
  /** A page the server draws (the queue dashboard): a plain link, a full page load. */
  server?: boolean;
}

const allowedNav = (user: CurrentUser | undefined) => ADMIN_NAV.filter((item) => userMay(user, item.permission));

function navItems(type: RouteType, user: CurrentUser | undefined): NavItem[] {
  const userId = user?.id;
  if (type === 'administrator') return allowedNav(user).map(({ label, to, server }) => ({ label, to, server }));
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
function useLogout() {
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
  if (type === 'administrator') return <AdminSideMenu />;
  return <MemberNavigationBar type={type} />;
}

function MemberNavigationBar({ type }: { type: RouteType }) {
  const { users } = useAuth();
  const onLogout = useLogout();
  return (
    <nav className="nav" aria-label={type === 'administrator' ? '管理メニュー' : '会員メニュー'}>
      <ul>
        {navItems(type, users[0]).map((item) => (
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

/**
 * The administrator's side menu: every admin screen from every admin screen, in groups. Wide screens
 * show it beside the page; below 900 px it is a disclosure (「管理メニュー」 button, aria-expanded)
 * that closes on a move to another page and on Escape. The current screen is aria-current="page";
 * a screen inside a menu item (a user's detail under ユーザー一覧) marks that item aria-current="true".
 */
function AdminSideMenu() {
  const onLogout = useLogout();
  const me = useAuth().users[0];
  const { pathname } = useLocation();
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const listId = useId();
  const current = currentAdminItem(pathname);
  // A link followed (or the back button): the phone's menu folds away again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on each move to another page
  useEffect(() => setOpen(false), [pathname]);

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && open) {
      setOpen(false);
      toggle.current?.focus();
    }
  };

  const link = (item: AdminNavItem) => {
    const here = current?.item === item;
    const ariaCurrent = here ? (current.exact ? 'page' : 'true') : undefined;
    const className = here ? 'active' : undefined;
    return item.server ? (
      <a href={item.to} aria-current={ariaCurrent} className={className}>
        {item.label}
      </a>
    ) : (
      <Link to={item.to} aria-current={ariaCurrent} className={className}>
        {item.label}
      </Link>
    );
  };

  return (
    <nav className="admin-nav" aria-label="管理メニュー" onKeyDown={onKeyDown}>
      <button
        ref={toggle}
        type="button"
        className="admin-nav-toggle"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen((v) => !v)}
      >
        <span aria-hidden="true" className="admin-nav-toggle-icon">
          {open ? '×' : '≡'}
        </span>
        管理メニュー
        {current ? <span className="admin-nav-toggle-here">（{current.item.label}）</span> : null}
      </button>
      <div id={listId} className={open ? 'admin-nav-body open' : 'admin-nav-body'}>
        <p className="admin-nav-home">
          <Link to="/admin">管理メニューのトップ</Link>
        </p>
        {ADMIN_NAV_GROUPS.map((group) => {
          const items = allowedNav(me).filter((item) => item.group === group);
          if (items.length === 0) return null;
          const headingId = `${listId}-${group}`;
          return (
            <div key={group} className="admin-nav-group">
              <p id={headingId} className="admin-nav-group-label">
                {group}
              </p>
              <ul aria-labelledby={headingId}>
                {items.map((item) => (
                  <li key={item.to}>{link(item)}</li>
                ))}
              </ul>
            </div>
          );
        })}
        <p className="admin-nav-logout">
          <button type="button" className="link-button" onClick={onLogout}>
            ログアウト
          </button>
        </p>
      </div>
    </nav>
  );
}

/** The administrator's menu screen with the navigation's links and log-out handed in. */
export function AdminMenuRoute({ page: Page }: { page: ComponentType<{ items: NavItem[]; onLogout: () => void }> }) {
  const onLogout = useLogout();
  return <Page items={navItems('administrator', useAuth().users[0])} onLogout={onLogout} />;
}
