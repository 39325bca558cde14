import { type RouteObject, redirect } from 'react-router';
import { licenseDrafts } from '../../features/licenses/api/license-draft';
import { NETWORK_REFUSED_PAGE } from '../../lib/api';
import { NetworkRefusedPage } from '../error-pages';
import { redirectSignedIn } from '../guards';
import { later, meta } from './route-helpers';

const login = () => import('../../features/auth/routes/login');
const logout = () => import('../../features/auth/routes/logout');
const forgotPassword = () => import('../../features/accounts/routes/forgot-password');
const resetPassword = () => import('../../features/accounts/routes/reset-password');
const twoFactorUnlock = () => import('../../features/accounts/routes/two-factor-unlock');
const terms = () => import('../../features/pages/routes/terms');
const privacy = () => import('../../features/pages/routes/privacy');
const legal = () => import('../../features/pages/routes/legal');
const landing = () => import('../../features/pages/routes/landing');
const guide = () => import('../../features/pages/routes/guide');
const contact = () => import('../../features/contact/routes/contact');
const registration = () => import('../../features/accounts/routes/registration');
const registrationConfirm = () => import('../../features/accounts/routes/registration-confirm');
const registrationComplete = () => import('../../features/accounts/routes/registration-complete');
const emailVerification = () => import('../../features/accounts/routes/email-verification');

/** Sign-in, the pages anyone reads, and registration. */
export const publicRoutes: RouteObject[] = [
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
  { path: NETWORK_REFUSED_PAGE, handle: meta(null, false, '管理画面を使えません'), element: <NetworkRefusedPage /> },
  // Public pages of the member's type: anyone reads them, a signed-in member keeps the menu (layout PUBLIC_PAGES).
  { path: '/terms', handle: meta('endUser', false, '利用規約'), lazy: later(terms, (m) => <m.TermsPage />) },
  { path: '/privacy', handle: meta('endUser', false, 'プライバシーポリシー'), lazy: later(privacy, (m) => <m.PrivacyPage />) },
  { path: '/guide', handle: meta('endUser', false, 'ご利用ガイド'), lazy: later(guide, (m) => <m.GuidePage />) },
  { path: '/contact', handle: meta('endUser', false, 'お問い合わせ'), lazy: later(contact, (m) => <m.ContactPage />) },
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
];
