import { createBrowserRouter, type RouteObject } from 'react-router';
import { NotFoundPage, RouteErrorPage } from './error-pages';
import { HydrateFallback, Layout } from './layout';
import { adminRoutes } from './routes/admin';
import { memberRoutes } from './routes/member';
import { publicRoutes } from './routes/public';
import { meta } from './routes/route-helpers';

/** Every screen with its route type and isMenu metadata (seed §2). Later features add their routes under routes/. */
const routes: RouteObject[] = [
  {
    element: <Layout />,
    errorElement: <RouteErrorPage />,
    hydrateFallbackElement: <HydrateFallback />,
    children: [
      ...publicRoutes,
      ...memberRoutes,
      ...adminRoutes,
      { path: '*', handle: meta(null, false, 'ページが見つかりません'), element: <NotFoundPage /> },
    ],
  },
];

export const createRouter = () => createBrowserRouter(routes);
