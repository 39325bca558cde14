import { Link, useParams, useSearchParams } from 'react-router';
import { LoadError } from '../../../components/ui/load-state';
import { useAuth } from '../../../lib/auth-store';
import { type CheckoutStatus, useCheckoutStatus } from '../api';
import { BankTransferDetails } from '../bank-transfer';
import { PaymentSettledNotice } from '../components/payment-settled-notice';
import { KonbiniVoucherDetails } from '../konbini-voucher';

function OrderNumber({ orderNumber }: { orderNumber: string | null | undefined }) {
  if (!orderNumber) return null;
  return (
    <dl className="order-summary">
      <dt>ご注文番号</dt>
      <dd className="order-number">{orderNumber}</dd>
    </dl>
  );
}

function Completed({ orderNumber }: { orderNumber: string | null | undefined }) {
  return (
    <>
      <h2>ご購入ありがとうございます</h2>
      <p role="status">お支払いを確認しました。ご登録のメールアドレスに確認メールをお送りしました。</p>
      <OrderNumber orderNumber={orderNumber} />
      {orderNumber ? (
        <p className="small">お問い合わせの際は、このご注文番号をお伝えください。購入履歴でも確認できます。</p>
      ) : null}
    </>
  );
}

function AwaitingTransfer({ data }: { data: CheckoutStatus }) {
  return (
    <>
      <h2>銀行振込でのお支払いをお待ちしています</h2>
      <OrderNumber orderNumber={data.order_number} />
      <p role="status">
        次のお客さま専用口座へ、期限までにお振り込みください。同じ内容をご登録のメールアドレスにもお送りします。お振込みを確認するとメールでお知らせします。
      </p>
      {data.bank_transfer ? <BankTransferDetails bank={data.bank_transfer} /> : null}
    </>
  );
}

function AwaitingKonbini({ data }: { data: CheckoutStatus }) {
  return (
    <>
      <h2>コンビニでのお支払いをお待ちしています</h2>
      <OrderNumber orderNumber={data.order_number} />
      {data.konbini ? (
        <>
          <p role="status">
            次のお支払い番号で、期限までにコンビニのレジまたは店頭端末でお支払いください。同じ内容をご登録のメールアドレスにもお送りします。お支払いを確認するとメールでお知らせします。
          </p>
          <KonbiniVoucherDetails voucher={data.konbini} amount={data.amount} />
          <p className="small">期限を過ぎるとお支払いできなくなります。お支払い番号は購入履歴でも確認できます。</p>
        </>
      ) : (
        <p role="status">
          お支払い番号をご登録のメールアドレスにお送りします。期限までにお支払いください。お支払い番号は購入履歴でも確認できます。
        </p>
      )}
    </>
  );
}

/** Where the checkout stands: still confirming, bought, waiting for a konbini payment, or not paid. */
function CheckoutState({ data, licenseId }: { data: CheckoutStatus | undefined; licenseId: string | undefined }) {
  if (!data || data.state === 'open' || (data.state === 'complete' && !data.sale_id))
    return (
      <p className="loading" role="status">
        <span className="spinner small" aria-hidden="true" />
        お支払いを確認しています。このままお待ちください…
      </p>
    );
  if (data.state === 'complete') return <Completed orderNumber={data.order_number} />;
  if (data.state === 'awaiting_payment' && data.bank_transfer) return <AwaitingTransfer data={data} />;
  if (data.state === 'awaiting_payment') return <AwaitingKonbini data={data} />;
  const reason =
    data.state === 'expired'
      ? 'お支払いの期限が過ぎました。'
      : data.state === 'superseded'
        ? '別の画面で新しいお手続きを始めたため、このお支払いページは使えなくなりました。'
        : data.state === 'payment_failed'
          ? 'お支払い期限までにお支払いを確認できなかったため、このお申し込みは期限切れになりました（お支払いはありません）。'
          : 'お支払いの確認で問題が見つかりました。お手数ですがお問い合わせください。';
  return (
    <p role="alert">
      {reason}
      <Link to={`/licenses/${licenseId}/procedure`}>もう一度お手続きする</Link>
    </p>
  );
}

/** Said once when a payment awaited while this page is open is settled (the page asks again until then). */
const SETTLED_MESSAGES = {
  complete: 'お支払いを確認しました。ご購入ありがとうございます。',
  payment_failed: 'お支払い期限までにお支払いを確認できなかったため、このお申し込みは期限切れになりました。',
  expired: 'お支払いの期限が過ぎました。',
};

/** /licenses/{id}/complete: "confirming payment" until the webhook has made the sale. */
export function PurchaseCompletePage() {
  const { id } = useParams();
  const sessionId = useSearchParams()[0].get('session_id');
  const { users } = useAuth();
  const { data, error } = useCheckoutStatus(sessionId);
  const history = users[0] ? `/users/${users[0].id}` : '/login';

  const body = !sessionId ? (
    <p role="alert">お支払いの情報がありません。購入履歴をご確認ください。</p>
  ) : error ? (
    <LoadError error={error} />
  ) : (
    <CheckoutState data={data} licenseId={id} />
  );
  return (
    <section className="card narrow">
      <h1>ご購入手続きの状況</h1>
      <PaymentSettledNotice state={data?.state} messages={SETTLED_MESSAGES} />
      {body}
      {/* An unknown session's error already offers the way on (LoadError). */}
      {error ? null : (
        <p className="actions">
          {data?.order_number && users[0] && data.state !== 'open' ? (
            <Link to={`/users/${users[0].id}/orders/${data.order_number}`} className="button">
              ご注文の内容を見る
            </Link>
          ) : null}
          <Link to={history} className="button">
            購入履歴を見る
          </Link>
          <Link to="/licenses" className="button">
            ライセンス一覧へ
          </Link>
        </p>
      )}
    </section>
  );
}
