import { type ReactNode, useEffect } from 'react';
import { Link, Outlet, useLocation, useMatches, useNavigation } from 'react-router';
import { site } from '../../../src/site-settings';
import { Loading } from '../components/ui/load-state';
import { LoadingOverlay } from '../components/ui/loading-overlay';
import { useTableLabels } from '../components/ui/table-labels';
import { useAuth } from '../lib/auth-store';
import { markDrawn } from '../lib/first-draw';
import { usePageTitleOverride } from '../lib/page-title';
import { NavigationBar } from './navigation';
import { RouteAnnouncer } from './route-focus';
import { type RouteMeta, type RouteType, showsNavigation } from './route-meta';

/** The deepest matched route's metadata. */
function useRouteMeta(): RouteMeta | undefined {
  const matches = useMatches();
  for (let i = matches.length - 1; i >= 0; i--) {
    const handle = matches[i]?.handle as RouteMeta | undefined;
    if (handle && 'type' in handle) return handle;
  }
  return undefined;
}

/** Pages of a navigation type that signed-out visitors may read too (the legal notice). */
const PUBLIC_PAGES = new Set(['/specified_commercial_transactions_law', '/terms', '/privacy', '/contact', '/guide']);

/** `reserveUser`: keep the line of the signed-in name while it is still being read (no jump when it arrives). */
export function Header({ reserveUser = false }: { reserveUser?: boolean }) {
  const { users } = useAuth();
  const user = users[0];
  return (
    <header className="site-header">
      <div className="site-header-inner">
        <Link to="/" className="brand">
          {site.shopName}
        </Link>
        <p className="tagline">{site.tagline}</p>
        {user ? (
          <p className="signed-in">{`${user.last_name} ${user.first_name}`.trim() || user.email} 様</p>
        ) : reserveUser ? (
          <p className="signed-in reserved" aria-hidden="true">
            &nbsp;
          </p>
        ) : null}
      </div>
    </header>
  );
}

export function Footer() {
  return (
    <footer className="site-footer">
      <nav aria-label="サイト情報">
        <ul className="footer-links">
          <li>
            <Link to="/terms">利用規約</Link>
          </li>
          <li>
            <Link to="/privacy">プライバシーポリシー</Link>
          </li>
          <li>
            <Link to="/specified_commercial_transactions_law">特定商取引法に基づく表記</Link>
          </li>
          <li>
            <Link to="/guide">ご利用ガイド</Link>
          </li>
          <li>
            <Link to="/contact">お問い合わせ</Link>
          </li>
        </ul>
      </nav>
      <p>{site.companyName}</p>
      <p>{site.address}</p>
      <p>{site.contact}</p>
      <p className="subsidy">{site.subsidyNote}</p>
      <p className="copyright">{site.copyright}</p>
    </footer>
  );
}

/**
 * Shown while the first route's loaders run on a full page load (react-router's HydrateFallback):
 * the page's frame with a loading line, so nothing is blank and the footer stays below the fold.
 */
export function HydrateFallback() {
  const meta = useRouteMeta();
  const { users } = useAuth();
  const { pathname } = useLocation();
  // A page behind sign-in will show the member's name and the menu: drawn (or kept) from the start.
  const signedIn = showsNavigation(meta) && meta !== undefined && (users.length > 0 || !PUBLIC_PAGES.has(pathname));
  return (
    <div className="app">
      <Header reserveUser={signedIn} />
      <Frame nav={signedIn && meta ? meta.type : null}>
        <Loading />
      </Frame>
      <Footer />
    </div>
  );
}

/**
 * The navigation and the page: a member's bar above the page; an administrator's side menu beside
 * it (above it on phones, folded into a 「管理メニュー」 button).
 */
function Frame({ nav, children }: { nav: RouteType; children: ReactNode }) {
  const main = (
    <main id="main" className="content">
      {children}
    </main>
  );
  if (nav === 'administrator') {
    return (
      <div className="admin-frame">
        <NavigationBar type={nav} />
        {main}
      </div>
    );
  }
  return (
    <>
      {nav ? <NavigationBar type={nav} /> : null}
      {main}
    </>
  );
}

export function Layout() {
  const meta = useRouteMeta();
  const navigation = useNavigation();
  const { users } = useAuth();
  const { pathname } = useLocation();
  const ownTitle = usePageTitleOverride(pathname);
  useTableLabels();
  useEffect(markDrawn, []);
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        本文へスキップ
      </a>
      <Header />
      {/* Public pages of an endUser type (the legal notice) show the bar only to signed-in users. */}
      <Frame nav={showsNavigation(meta) && meta && users.length > 0 ? meta.type : null}>
        <Outlet />
      </Frame>
      <Footer />
      <LoadingOverlay show={navigation.state !== 'idle'} />
      <RouteAnnouncer title={ownTitle ?? meta?.title ?? 'ライセンスストア'} />
    </div>
  );
}
