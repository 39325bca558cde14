import type { RouteObject } from 'react-router';
import { NotFoundPage } from '../error-pages';
import { requireAdministrator, requirePermission } from '../guards';
import { AdminMenuRoute } from '../navigation';
import { later, meta, purchaseHistory } from './route-helpers';

const userEdit = () => import('../../features/accounts/routes/user-edit');
const adminUserList = () => import('../../features/accounts/routes/admin-user-list');
const adminUsers = () => import('../../features/accounts/routes/admin-users');
const adminUserDetail = () => Promise.all([adminUsers(), purchaseHistory()]);
const adminLicenseForm = () => import('../../features/licenses/routes/admin-form');
const adminLicenseConfirm = () => import('../../features/licenses/routes/admin-confirm');

/** The back office, for administrators only. */
export const adminRoutes: RouteObject[] = [
  {
    path: '/admin',
    loader: requireAdministrator,
    children: [
      {
        index: true,
        handle: meta('administrator', true, '管理メニュー'),
        lazy: later(
          () => import('../../features/admin/routes/menu'),
          (m) => <AdminMenuRoute page={m.AdminMenuPage} />,
        ),
      },
      {
        path: 'users',
        handle: meta('administrator', false, 'ユーザー一覧'),
        lazy: later(adminUserList, (m) => <m.AdminUserListPage />),
      },
      {
        path: 'users/:id',
        handle: meta('administrator', false, 'ユーザー詳細'),
        lazy: later(adminUserDetail, ([m, history]) => (
          <m.AdminUserDetailPage>
            <history.PurchaseHistory />
          </m.AdminUserDetailPage>
        )),
      },
      {
        path: 'users/:id/edit',
        loader: requirePermission('members:update'),
        handle: meta('administrator', false, 'ユーザー情報の編集'),
        lazy: later(userEdit, (m) => <m.UserEditPage base="/admin/users" />),
      },
      {
        path: 'users/:id/edit/confirm',
        loader: requirePermission('members:update'),
        handle: meta('administrator', false, '変更内容の確認'),
        lazy: later(userEdit, (m) => <m.UserEditConfirmPage base="/admin/users" />),
      },
      {
        path: 'users/:id/password',
        loader: requirePermission('members:set-password'),
        handle: meta('administrator', false, 'パスワードの強制変更'),
        lazy: later(adminUsers, (m) => <m.AdminUserPasswordPage />),
      },
      {
        path: 'users/:id/delete',
        loader: requirePermission('members:delete'),
        handle: meta('administrator', false, 'ユーザーの削除'),
        lazy: later(adminUsers, (m) => <m.AdminUserDeletePage />),
      },
      {
        path: 'announcements',
        handle: meta('administrator', false, 'お知らせ配信'),
        lazy: later(
          () => import('../../features/announcements/routes/announcements'),
          (m) => <m.AnnouncementsPage />,
        ),
      },
      {
        path: 'licenses',
        handle: meta('administrator', false, 'ライセンス一覧'),
        lazy: later(
          () => import('../../features/licenses/routes/admin-list'),
          (m) => <m.AdminLicenseListPage />,
        ),
      },
      {
        path: 'licenses/issue',
        handle: meta('administrator', false, 'ライセンス発行'),
        lazy: later(
          () => import('../../features/sales/routes/issue'),
          (m) => <m.IssuePage />,
        ),
      },
      {
        path: 'licenses/create',
        loader: requirePermission('licenses:update'),
        handle: meta('administrator', false, 'ライセンスの新規登録'),
        lazy: later(adminLicenseForm, (m) => <m.AdminLicenseFormPage />),
      },
      {
        path: 'licenses/create/confirm',
        loader: requirePermission('licenses:update'),
        handle: meta('administrator', false, '登録内容の確認'),
        lazy: later(adminLicenseConfirm, (m) => <m.AdminLicenseConfirmPage />),
      },
      {
        path: 'licenses/:id',
        handle: meta('administrator', false, 'ライセンス詳細'),
        lazy: later(
          () => import('../../features/licenses/routes/admin-detail'),
          (m) => <m.AdminLicenseDetailPage />,
        ),
      },
      {
        path: 'licenses/:id/edit',
        loader: requirePermission('licenses:update'),
        handle: meta('administrator', false, 'ライセンスの編集'),
        lazy: later(adminLicenseForm, (m) => <m.AdminLicenseFormPage />),
      },
      {
        path: 'licenses/:id/edit/confirm',
        loader: requirePermission('licenses:update'),
        handle: meta('administrator', false, '変更内容の確認'),
        lazy: later(adminLicenseConfirm, (m) => <m.AdminLicenseConfirmPage />),
      },
      {
        path: 'sales/summary',
        handle: meta('administrator', false, '売上集計'),
        lazy: later(
          () => import('../../features/sales/routes/summary'),
          (m) => <m.SalesSummaryPage />,
        ),
      },
      {
        path: 'documents',
        handle: meta('administrator', false, '見積書・請求書'),
        lazy: later(
          () => import('../../features/admin/routes/documents'),
          (m) => <m.DocumentsPage />,
        ),
      },
      {
        path: 'sales/:id',
        handle: meta('administrator', false, '注文の詳細'),
        lazy: later(
          () => import('../../features/sales/routes/order-detail'),
          (m) => <m.OrderDetailPage />,
        ),
      },
      {
        path: 'payments/konbini',
        handle: meta('administrator', false, 'コンビニ払いのお支払い待ち'),
        lazy: later(
          () => import('../../features/payments/routes/pending-konbini'),
          (m) => <m.PendingKonbiniPage />,
        ),
      },
      {
        path: 'payments',
        handle: meta('administrator', false, '決済の受信箱と照合'),
        lazy: later(
          () => import('../../features/payments/routes/payments'),
          (m) => <m.AdminPaymentsPage />,
        ),
      },
      {
        path: 'audit',
        handle: meta('administrator', false, '操作履歴'),
        lazy: later(
          () => import('../../features/audit/routes/audit-log'),
          (m) => <m.AuditLogPage />,
        ),
      },
      {
        path: 'operations',
        handle: meta('administrator', false, '運用状況'),
        lazy: later(
          () => import('../../features/operations/routes/operations'),
          (m) => <m.OperationsPage />,
        ),
      },
      {
        path: 'mails',
        handle: meta('administrator', false, '送信に失敗したメール'),
        lazy: later(
          () => import('../../features/mails/routes/failed-mails'),
          (m) => <m.FailedMailsPage />,
        ),
      },
      { path: '*', handle: meta('administrator', false, 'ページが見つかりません'), element: <NotFoundPage /> },
    ],
  },
];
