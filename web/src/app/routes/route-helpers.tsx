import type { ReactNode } from 'react';
import type { RouteMeta } from '../route-meta';

export const meta = (type: RouteMeta['type'], isMenu: boolean, title: string): RouteMeta => ({ type, isMenu, title });

/**
 * A screen's code, loaded when the screen is first opened (react-router's `lazy`, run alongside the
 * route's loader): the app's entry holds only the frame (layout, guards, error pages), so a member's
 * first page downloads neither the back office nor the other screens. While it loads, a full page
 * load shows HydrateFallback and a navigation the layout's loading overlay; a chunk that cannot be
 * fetched (a release replaced since the page was loaded) ends in RouteErrorPage, which offers a reload.
 */
export const later =
  <M,>(load: () => Promise<M>, draw: (m: M) => ReactNode) =>
  async () => ({ element: draw(await load()) });

/** The purchase history, shown on the member's page and on the administrator's view of a member. */
export const purchaseHistory = () => import('../../features/purchase/purchase-history');
