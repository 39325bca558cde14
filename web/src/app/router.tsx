import { createBrowserRouter, type RouteObject, redirect } from 'react-router';
import { AdminMenuPage } from '../features/admin/routes/menu';
import { fetchCurrentUser } from '../features/auth/api/auth-store';
import { LoginPage } from '../features/auth/routes/login';
import { LogoutPage } from '../features/auth/routes/logout';
import { NotFoundPage, RouteErrorPage } from './error-pages';
import { homeOf, requireAdministrator } from './guards';
import { Layout } from './layout';
import type { RouteMeta } from './route-meta';

const meta = (type: RouteMeta['type'], isMenu: boolean, title: string): RouteMeta => ({ type, isMenu, title });

/** Every screen with its route type and isMenu metadata (seed §2). Later features add their routes here. */
export const routes: RouteObject[] = [
  {
    element: <Layout />,
    errorElement: <RouteErrorPage />,
    children: [
      { path: '/', loader: () => redirect('/login') },
      {
        path: '/login',
        handle: meta(null, false, 'ログイン'),
        loader: async () => {
          const user = await fetchCurrentUser().catch(() => null);
          return user ? redirect(homeOf(user)) : null;
        },
        element: <LoginPage />,
      },
      { path: '/logout', handle: meta(null, false, 'ログアウト'), element: <LogoutPage /> },
      {
        path: '/admin',
        loader: requireAdministrator,
        children: [
          { index: true, handle: meta('administrator', true, '管理メニュー'), element: <AdminMenuPage /> },
          { path: '*', handle: meta('administrator', false, 'ページが見つかりません'), element: <NotFoundPage /> },
        ],
      },
      { path: '*', handle: meta(null, false, 'ページが見つかりません'), element: <NotFoundPage /> },
    ],
  },
];

export const createRouter = () => createBrowserRouter(routes);
