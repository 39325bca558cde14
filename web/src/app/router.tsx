import type { ReactNode } from 'react';
import { createBrowserRouter, type RouteObject, redirect } from 'react-router';
import { licenseDrafts } from '../features/licenses/api/license-draft';
import { NotFoundPage, RouteErrorPage } from './error-pages';
import { redirectSignedIn, requireAdministrator, requireSignedIn } from './guards';
import { HydrateFallback, Layout } from './layout';
import { AdminMenuRoute } from './navigation';
import type { RouteMeta } from './route-meta';

const meta = (type: RouteMeta['type'], isMenu: boolean, title: string): RouteMeta => ({ type, isMenu, title });

/**
 * A screen's code, loaded when the screen is first opened (react-router's `lazy`, run alongside the
 * route's loader): the app's entry holds only the frame (layout, guards, error pages), so a member's
 * first page downloads neither the back office nor the other screens. While it loads, a full page
 * load shows HydrateFallback and a navigation the layout's loading overlay; a chunk that cannot be
 * fetched (a release replaced since the page was loaded) ends in RouteErrorPage, which offers a reload.
 */
const later =
  <M,>(load: () => Promise<M>, draw: (m: M) => ReactNode) =>
  async () => ({ element: draw(await load()) });

const login = () => import('../features/auth/routes/login');
const logout = () => import('../features/auth/routes/logout');
const forgotPassword = () => import('../features/accounts/routes/forgot-password');
const resetPassword = () => import('../features/accounts/routes/reset-password');
const twoFactorUnlock = () => import('../features/accounts/routes/two-factor-unlock');
const terms = () => import('../features/pages/routes/terms');
const privacy = () => import('../features/pages/routes/privacy');
const legal = () => import('../features/pages/routes/legal');
const landing = () => import('../features/pages/routes/landing');
const registration = () => import('../features/accounts/routes/registration');
const registrationConfirm = () => import('../features/accounts/routes/registration-confirm');
const registrationComplete = () => import('../features/accounts/routes/registration-complete');
const emailVerification = () => import('../features/accounts/routes/email-verification');
const catalogue = () => import('../features/licenses/routes/catalogue');
const licenseDetail = () => import('../features/licenses/routes/license-detail');
const procedure = () => import('../features/purchase/routes/procedure');
const purchaseComplete = () => import('../features/purchase/routes/complete');
const checkoutRedirect = () => import('../features/purchase/routes/checkout-redirect');
const security = () => import('../features/accounts/routes/security');
const userEdit = () => import('../features/accounts/routes/user-edit');
const userPassword = () => import('../features/accounts/routes/user-password');
const withdraw = () => import('../features/accounts/routes/withdraw');
const purchaseHistory = () => import('../features/purchase/purchase-history');
const userDetail = () => Promise.all([import('../features/accounts/routes/user-detail'), purchaseHistory()]);
const adminUsers = () => import('../features/accounts/routes/admin-users');
const adminUserDetail = () => Promise.all([adminUsers(), purchaseHistory()]);
const adminLicenseForm = () => import('../features/licenses/routes/admin-form');
const adminLicenseConfirm = () => import('../features/licenses/routes/admin-confirm');

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
        lazy: later(login, (m) => <m.LoginPage />),
      },
      {
        path: '/logout',
        handle: meta(null, false, 'ログアウト'),
        lazy: later(logout, (m) => <m.LogoutPage onSignedOut={() => licenseDrafts.forgetAll()} />),
      },
      {
        path: '/forgot-password',
        handle: meta(null, false, 'パスワードをお忘れの方'),
        lazy: later(forgotPassword, (m) => <m.ForgotPasswordPage />),
      },
      {
        path: '/reset-password/:token',
        handle: meta(null, false, 'パスワードの再設定'),
        lazy: later(resetPassword, (m) => <m.ResetPasswordPage />),
      },
      {
        path: '/two-factor/unlock/:token',
        handle: meta(null, false, '確認コードによるログインの再開'),
        lazy: later(twoFactorUnlock, (m) => <m.TwoFactorUnlockPage />),
      },
      { path: '/terms', handle: meta(null, false, '利用規約'), lazy: later(terms, (m) => <m.TermsPage />) },
      { path: '/privacy', handle: meta(null, false, 'プライバシーポリシー'), lazy: later(privacy, (m) => <m.PrivacyPage />) },
      // Public (SPEC §3): anyone must be able to read it before buying.
      {
        path: '/specified_commercial_transactions_law',
        handle: meta('endUser', false, '特定商取引法に基づく表記'),
        lazy: later(legal, (m) => <m.LegalNoticePage />),
      },
      {
        path: '/ctoms',
        handle: meta(null, false, 'トレーニングライセンスのご案内'),
        lazy: later(landing, (m) => <m.LandingPage />),
      },
      {
        path: '/users/registration',
        children: [
          {
            index: true,
            handle: meta(null, false, '新規会員登録'),
            loader: redirectSignedIn,
            lazy: later(registration, (m) => <m.RegistrationPage />),
          },
          {
            path: 'confirm',
            handle: meta(null, false, '登録内容の確認'),
            loader: redirectSignedIn,
            lazy: later(registrationConfirm, (m) => <m.RegistrationConfirmPage />),
          },
          {
            path: 'complete',
            handle: meta(null, false, '確認メールを送信しました'),
            lazy: later(registrationComplete, (m) => <m.RegistrationCompletePage />),
          },
          {
            path: 'email-verified',
            handle: meta(null, false, 'メールアドレスの確認完了'),
            lazy: later(emailVerification, (m) => <m.EmailVerifiedPage />),
          },
          {
            path: 'email-verify-failed',
            handle: meta(null, false, 'メールアドレスを確認できませんでした'),
            lazy: later(emailVerification, (m) => <m.EmailVerifyFailedPage />),
          },
        ],
      },
      {
        path: '/licenses',
        loader: requireSignedIn,
        children: [
          { index: true, handle: meta('endUser', false, 'ライセンス一覧'), lazy: later(catalogue, (m) => <m.CataloguePage />) },
          {
            path: ':id',
            handle: meta('endUser', false, 'ライセンス詳細'),
            lazy: later(licenseDetail, (m) => <m.LicenseDetailPage />),
          },
          {
            path: ':id/procedure',
            handle: meta('endUser', false, 'ご購入手続き'),
            lazy: later(procedure, (m) => <m.ProcedurePage />),
          },
          {
            path: ':id/complete',
            handle: meta('endUser', false, 'ご購入手続きの状況'),
            lazy: later(purchaseComplete, (m) => <m.PurchaseCompletePage />),
          },
          {
            path: 'checkout/:protocol/:page/:token',
            handle: meta('endUser', false, 'お支払いページへ移動'),
            lazy: later(checkoutRedirect, (m) => <m.CheckoutRedirectPage />),
          },
        ],
      },
      {
        path: '/account/security',
        loader: requireSignedIn,
        handle: meta('endUser', false, '二段階認証とパスキー'),
        lazy: later(security, (m) => <m.SecurityPage />),
      },
      {
        path: '/users/:id',
        loader: requireSignedIn,
        children: [
          {
            index: true,
            handle: meta('endUser', false, '会員情報・購入履歴'),
            lazy: later(userDetail, ([m, history]) => (
              <m.UserDetailPage>
                <history.PurchaseHistory />
              </m.UserDetailPage>
            )),
          },
          { path: 'edit', handle: meta('endUser', false, '会員情報の変更'), lazy: later(userEdit, (m) => <m.UserEditPage />) },
          {
            path: 'edit/confirm',
            handle: meta('endUser', false, '変更内容の確認'),
            lazy: later(userEdit, (m) => <m.UserEditConfirmPage />),
          },
          {
            path: 'password',
            handle: meta('endUser', false, 'パスワードの変更'),
            lazy: later(userPassword, (m) => <m.UserPasswordPage />),
          },
          { path: 'withdraw', handle: meta('endUser', false, '退会'), lazy: later(withdraw, (m) => <m.WithdrawPage />) },
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
              (m) => <AdminMenuRoute page={m.AdminMenuPage} />,
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
            lazy: later(adminUserDetail, ([m, history]) => (
              <m.AdminUserDetailPage>
                <history.PurchaseHistory />
              </m.AdminUserDetailPage>
            )),
          },
          {
            path: 'users/:id/edit',
            handle: meta('administrator', false, 'ユーザー情報の編集'),
            lazy: later(userEdit, (m) => <m.UserEditPage base="/admin/users" />),
          },
          {
            path: 'users/:id/edit/confirm',
            handle: meta('administrator', false, '変更内容の確認'),
            lazy: later(userEdit, (m) => <m.UserEditConfirmPage base="/admin/users" />),
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
            lazy: later(adminLicenseForm, (m) => <m.AdminLicenseFormPage />),
          },
          {
            path: 'licenses/create/confirm',
            handle: meta('administrator', false, '登録内容の確認'),
            lazy: later(adminLicenseConfirm, (m) => <m.AdminLicenseConfirmPage />),
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
            lazy: later(adminLicenseForm, (m) => <m.AdminLicenseFormPage />),
          },
          {
            path: 'licenses/:id/edit/confirm',
            handle: meta('administrator', false, '変更内容の確認'),
            lazy: later(adminLicenseConfirm, (m) => <m.AdminLicenseConfirmPage />),
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
            path: 'sales/:id',
            handle: meta('administrator', false, '注文の詳細'),
            lazy: later(
              () => import('../features/sales/routes/order-detail'),
              (m) => <m.OrderDetailPage />,
            ),
          },
          {
            path: 'payments/konbini',
            handle: meta('administrator', false, 'コンビニ払いのお支払い待ち'),
            lazy: later(
              () => import('../features/payments/routes/pending-konbini'),
              (m) => <m.PendingKonbiniPage />,
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
