import type { RouteObject } from 'react-router';
import { requireSignedIn } from '../guards';
import { later, meta, purchaseHistory } from './route-helpers';

const catalogue = () => import('../../features/licenses/routes/catalogue');
const licenseDetail = () => import('../../features/licenses/routes/license-detail');
const procedure = () => import('../../features/purchase/routes/procedure');
const purchaseComplete = () => import('../../features/purchase/routes/complete');
const order = () => import('../../features/purchase/routes/order');
const checkoutRedirect = () => import('../../features/purchase/routes/checkout-redirect');
const security = () => import('../../features/accounts/routes/security');
const userEdit = () => import('../../features/accounts/routes/user-edit');
const userPassword = () => import('../../features/accounts/routes/user-password');
const withdraw = () =>
  Promise.all([import('../../features/accounts/routes/withdraw'), import('../../features/purchase/receipts-before-withdrawal')]);
const userDetail = () => Promise.all([import('../../features/accounts/routes/user-detail'), purchaseHistory()]);

/** A member's screens: the catalogue, buying, their account. */
export const memberRoutes: RouteObject[] = [
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
      {
        path: 'orders/:orderNumber',
        handle: meta('endUser', false, 'ご注文の内容'),
        lazy: later(order, (m) => <m.OrderPage />),
      },
      {
        path: 'withdraw',
        handle: meta('endUser', false, '退会'),
        lazy: later(withdraw, ([m, receipts]) => (
          <m.WithdrawPage>
            <receipts.ReceiptsBeforeWithdrawal />
          </m.WithdrawPage>
        )),
      },
    ],
  },
];
