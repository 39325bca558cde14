export type RouteType = 'administrator' | 'endUser' | null;

/** Route metadata (seed §2), kept in each route's `handle`. */
export interface RouteMeta {
  type: RouteType;
  isMenu: boolean;
  title?: string;
}

/** The navigation bar shows only on administrator/endUser routes that are not menu pages. */
export function showsNavigation(meta: RouteMeta | undefined): boolean {
  return Boolean(meta && (meta.type === 'administrator' || meta.type === 'endUser') && !meta.isMenu);
}

/** The browser tab's title: the page's own, then the shop's. */
export const documentTitle = (meta: Pick<RouteMeta, 'title'> | undefined) =>
  meta?.title ? `${meta.title}｜ライセンスストア` : 'ライセンスストア';
