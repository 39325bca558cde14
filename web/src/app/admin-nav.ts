import type { components } from '../lib/api-schema.d.ts';

type Permission = components['schemas']['User']['permissions'][number];

/**
 * Every administrator screen that a menu reaches, in one list: the side menu on every admin page and
 * the buttons of 管理メニュー (/admin) are both drawn from it. A new admin screen adds one line here.
 * `server`: a page the server draws (not a route of this SPA), opened with a full page load.
 */
export interface AdminNavItem {
  label: string;
  to: string;
  group: AdminNavGroup;
  server?: boolean;
  /** Shown only to a role with it. */
  permission: Permission;
}

export type AdminNavGroup = '会員' | 'ライセンスと売上' | '決済' | '記録と運用';

/** The order of the groups in the side menu. */
export const ADMIN_NAV_GROUPS: readonly AdminNavGroup[] = ['会員', 'ライセンスと売上', '決済', '記録と運用'];

export const ADMIN_NAV: readonly AdminNavItem[] = [
  { label: 'ユーザー一覧', to: '/admin/users', group: '会員', permission: 'members:read' },
  { label: 'お知らせ配信', to: '/admin/announcements', group: '会員', permission: 'members:read' },
  { label: 'ライセンス一覧', to: '/admin/licenses', group: 'ライセンスと売上', permission: 'licenses:read' },
  { label: 'ライセンス発行', to: '/admin/licenses/issue', group: 'ライセンスと売上', permission: 'sales:read' },
  { label: '売上集計', to: '/admin/sales/summary', group: 'ライセンスと売上', permission: 'sales:read' },
  { label: '見積書・請求書', to: '/admin/documents', group: 'ライセンスと売上', permission: 'sales:read' },
  { label: '決済の受信箱と照合', to: '/admin/payments', group: '決済', permission: 'payments:read' },
  { label: 'コンビニ払いのお支払い待ち', to: '/admin/payments/konbini', group: '決済', permission: 'payments:read' },
  { label: '操作履歴', to: '/admin/audit', group: '記録と運用', permission: 'audit:read' },
  { label: '送信に失敗したメール', to: '/admin/mails', group: '記録と運用', permission: 'mails:read' },
  { label: '運用状況', to: '/admin/operations', group: '記録と運用', permission: 'operations:read' },
  { label: 'ジョブキュー', to: '/admin/queues', group: '記録と運用', server: true, permission: 'operations:read' },
];

/**
 * The menu item the page at `pathname` belongs to: the one whose path is the longest prefix of it
 * (/admin/users/12/edit → ユーザー一覧; /admin/licenses/issue → ライセンス発行, not ライセンス一覧).
 * `exact` when the page is the item's own screen (aria-current="page"), else a page inside it.
 */
export function currentAdminItem(pathname: string): { item: AdminNavItem; exact: boolean } | undefined {
  const path = pathname.replace(/\/+$/, '') || '/';
  let best: AdminNavItem | undefined;
  for (const item of ADMIN_NAV) {
    if ((path === item.to || path.startsWith(`${item.to}/`)) && (!best || item.to.length > best.to.length)) best = item;
  }
  return best ? { item: best, exact: path === best.to } : undefined;
}
