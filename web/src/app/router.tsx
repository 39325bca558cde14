import type { ReactNode } from 'react';
import { createBrowserRouter, type RouteObject, redirect } from 'react-router';
import { EmailVerifiedPage, EmailVerifyFailedPage } from '../features/accounts/routes/email-verification';
import { ForgotPasswordPage } from '../features/accounts/routes/forgot-password';
import { RegistrationPage } from '../features/accounts/routes/registration';
import { RegistrationCompletePage } from '../features/accounts/routes/registration-complete';
import { RegistrationConfirmPage } from '../features/accounts/routes/registration-confirm';
import { ResetPasswordPage } from '../features/accounts/routes/reset-password';
import { SecurityPage } from '../features/accounts/routes/security';
import { UserDetailPage } from '../features/accounts/routes/user-detail';
import { UserEditConfirmPage, UserEditPage } from '../features/accounts/routes/user-edit';
import { UserPasswordPage } from '../features/accounts/routes/user-password';
import { WithdrawPage } from '../features/accounts/routes/withdraw';
import { LoginPage } from '../features/auth/routes/login';
import { LogoutPage } from '../features/auth/routes/logout';
import { licenseDrafts } from '../features/licenses/api/license-draft';
// Loaded with the app, not on first use: the form tells browser Back from a fresh visit by a
// popstate listener it registers when it is imported (admin-form.tsx).
import { AdminLicenseConfirmPage } from '../features/licenses/routes/admin-confirm';
import { AdminLicenseFormPage } from '../features/licenses/routes/admin-form';
import { CataloguePage } from '../features/licenses/routes/catalogue';
import { LicenseDetailPage } from '../features/licenses/routes/license-detail';
import { LandingPage } from '../features/pages/routes/landing';
import { LegalNoticePage } from '../features/pages/routes/legal';
import { PrivacyPage } from '../features/pages/routes/privacy';
import { TermsPage } from '../features/pages/routes/terms';
import { PurchaseHistory } from '../features/purchase/purchase-history';
import { CheckoutRedirectPage } from '../features/purchase/routes/checkout-redirect';
import { PurchaseCompletePage } from '../features/purchase/routes/complete';
import { ProcedurePage } from '../features/purchase/routes/procedure';
import { NotFoundPage, RouteErrorPage } from './error-pages';
import { redirectSignedIn, requireAdministrator, requireSignedIn } from './guards';
import { HydrateFallback, Layout } from './layout';
import type { RouteMeta } from './route-meta';

const meta = (type: RouteMeta['type'], isMenu: boolean, title: string): RouteMeta => ({ type, isMenu, title });

/** A screen loaded on first use (the back office: members never download it, so their first paint is faster). */
const later =
  <M,>(load: () => Promise<M>, draw: (m: M) => ReactNode) =>
  async () => ({ element: draw(await load()) });
const adminUsers = () => import('../features/accounts/routes/admin-users');

/** Every screen with its route type and isMenu metadata (seed §2). Later features add their routes here. */
export const routes: RouteObject[] = [
  {
    element: <Layout />,
    errorElement: <RouteErrorPage />,
    hydrateFallbackElement: <HydrateFallback />,
    children: [
      { path: '/', loader: () => redirect('/login') },
      {
        path: '/login',
        handle: meta(null, false, 'ログイン'),
        loader: redirectSignedIn,
        element: <LoginPage />,
      },
      {
        path: '/logout',
        handle: meta(null, false, 'ログアウト'),
        element: <LogoutPage onSignedOut={() => licenseDrafts.forgetAll()} />,
      },
      { path: '/forgot-password', handle: meta(null, false, 'パスワードをお忘れの方'), element: <ForgotPasswordPage /> },
      { path: '/reset-password/:token', handle: meta(null, false, 'パスワードの再設定'), element: <ResetPasswordPage /> },
      { path: '/terms', handle: meta(null, false, '利用規約'), element: <TermsPage /> },
      { path: '/privacy', handle: meta(null, false, 'プライバシーポリシー'), element: <PrivacyPage /> },
      // Public (SPEC §3): anyone must be able to read it before buying.
      {
        path: '/specified_commercial_transactions_law',
        handle: meta('endUser', false, '特定商取引法に基づく表記'),
        element: <LegalNoticePage />,
      },
      { path: '/ctoms', handle: meta(null, false, 'トレーニングライセンスのご案内'), element: <LandingPage /> },
      {
        path: '/users/registration',
        children: [
          { index: true, handle: meta(null, false, '新規会員登録'), loader: redirectSignedIn, element: <RegistrationPage /> },
          {
            path: 'confirm',
            handle: meta(null, false, '登録内容の確認'),
            loader: redirectSignedIn,
            element: <RegistrationConfirmPage />,
          },
          { path: 'complete', handle: meta(null, false, '確認メールを送信しました'), element: <RegistrationCompletePage /> },
          { path: 'email-verified', handle: meta(null, false, 'メールアドレスの確認完了'), element: <EmailVerifiedPage /> },
          {
            path: 'email-verify-failed',
            handle: meta(null, false, 'メールアドレスを確認できませんでした'),
            element: <EmailVerifyFailedPage />,
          },
        ],
      },
      {
        path: '/licenses',
        loader: requireSignedIn,
        children: [
          { index: true, handle: meta('endUser', false, 'ライセンス一覧'), element: <CataloguePage /> },
          { path: ':id', handle: meta('endUser', false, 'ライセンス詳細'), element: <LicenseDetailPage /> },
          { path: ':id/procedure', handle: meta('endUser', false, 'ご購入手続き'), element: <ProcedurePage /> },
          { path: ':id/complete', handle: meta('endUser', false, 'ご購入手続きの状況'), element: <PurchaseCompletePage /> },
          {
            path: 'checkout/:protocol/:page/:token',
            handle: meta('endUser', false, 'お支払いページへ移動'),
            element: <CheckoutRedirectPage />,
          },
        ],
      },
      {
        path: '/account/security',
        loader: requireSignedIn,
        handle: meta('endUser', false, '二段階認証とパスキー'),
        element: <SecurityPage />,
      },
      {
        path: '/users/:id',
        loader: requireSignedIn,
        children: [
          {
            index: true,
            handle: meta('endUser', false, '会員情報・購入履歴'),
            element: (
              <UserDetailPage>
                <PurchaseHistory />
              </UserDetailPage>
            ),
          },
          { path: 'edit', handle: meta('endUser', false, '会員情報の変更'), element: <UserEditPage /> },
          { path: 'edit/confirm', handle: meta('endUser', false, '変更内容の確認'), element: <UserEditConfirmPage /> },
          { path: 'password', handle: meta('endUser', false, 'パスワードの変更'), element: <UserPasswordPage /> },
          { path: 'withdraw', handle: meta('endUser', false, '退会'), element: <WithdrawPage /> },
        ],
      },
      {
        path: '/admin',
        loader: requireAdministrator,
        children: [
          {
            index: true,
            handle: meta('administrator', true, '管理メニュー'),
            lazy: later(
              () => import('../features/admin/routes/menu'),
              (m) => <m.AdminMenuPage />,
            ),
          },
          {
            path: 'users',
            handle: meta('administrator', false, 'ユーザー一覧'),
            lazy: later(adminUsers, (m) => <m.AdminUserListPage />),
          },
          {
            path: 'users/:id',
            handle: meta('administrator', false, 'ユーザー詳細'),
            lazy: later(adminUsers, (m) => (
              <m.AdminUserDetailPage>
                <PurchaseHistory />
              </m.AdminUserDetailPage>
            )),
          },
          {
            path: 'users/:id/edit',
            handle: meta('administrator', false, 'ユーザーの編集'),
            element: <UserEditPage base="/admin/users" />,
          },
          {
            path: 'users/:id/edit/confirm',
            handle: meta('administrator', false, '変更内容の確認'),
            element: <UserEditConfirmPage base="/admin/users" />,
          },
          {
            path: 'users/:id/password',
            handle: meta('administrator', false, 'パスワードの強制変更'),
            lazy: later(adminUsers, (m) => <m.AdminUserPasswordPage />),
          },
          {
            path: 'users/:id/delete',
            handle: meta('administrator', false, 'ユーザーの削除'),
            lazy: later(adminUsers, (m) => <m.AdminUserDeletePage />),
          },
          {
            path: 'licenses',
            handle: meta('administrator', false, 'ライセンス一覧'),
            lazy: later(
              () => import('../features/licenses/routes/admin-list'),
              (m) => <m.AdminLicenseListPage />,
            ),
          },
          {
            path: 'licenses/issue',
            handle: meta('administrator', false, 'ライセンス発行'),
            lazy: later(
              () => import('../features/sales/routes/issue'),
              (m) => <m.IssuePage />,
            ),
          },
          {
            path: 'licenses/create',
            handle: meta('administrator', false, 'ライセンスの新規登録'),
            element: <AdminLicenseFormPage />,
          },
          {
            path: 'licenses/create/confirm',
            handle: meta('administrator', false, '登録内容の確認'),
            element: <AdminLicenseConfirmPage />,
          },
          {
            path: 'licenses/:id',
            handle: meta('administrator', false, 'ライセンス詳細'),
            lazy: later(
              () => import('../features/licenses/routes/admin-detail'),
              (m) => <m.AdminLicenseDetailPage />,
            ),
          },
          {
            path: 'licenses/:id/edit',
            handle: meta('administrator', false, 'ライセンスの編集'),
            element: <AdminLicenseFormPage />,
          },
          {
            path: 'licenses/:id/edit/confirm',
            handle: meta('administrator', false, '変更内容の確認'),
            element: <AdminLicenseConfirmPage />,
          },
          {
            path: 'sales/summary',
            handle: meta('administrator', false, '売上集計'),
            lazy: later(
              () => import('../features/sales/routes/summary'),
              (m) => <m.SalesSummaryPage />,
            ),
          },
          {
            path: 'payments',
            handle: meta('administrator', false, '決済の受信箱と照合'),
            lazy: later(
              () => import('../features/payments/routes/payments'),
              (m) => <m.AdminPaymentsPage />,
            ),
          },
          {
            path: 'audit',
            handle: meta('administrator', false, '操作履歴'),
            lazy: later(
              () => import('../features/audit/routes/audit-log'),
              (m) => <m.AuditLogPage />,
            ),
          },
          {
            path: 'operations',
            handle: meta('administrator', false, '運用状況'),
            lazy: later(
              () => import('../features/operations/routes/operations'),
              (m) => <m.OperationsPage />,
            ),
          },
          {
            path: 'mails',
            handle: meta('administrator', false, '送信に失敗したメール'),
            lazy: later(
              () => import('../features/mails/routes/failed-mails'),
              (m) => <m.FailedMailsPage />,
            ),
          },
          { path: '*', handle: meta('administrator', false, 'ページが見つかりません'), element: <NotFoundPage /> },
        ],
      },
      { path: '*', handle: meta(null, false, 'ページが見つかりません'), element: <NotFoundPage /> },
    ],
  },
];

export const createRouter = () => createBrowserRouter(routes);
