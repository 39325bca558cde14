import { Link, useParams } from 'react-router';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { formatPrice } from '../../../lib/format';
import { formatJapanTime } from '../../../lib/japan-time';
import { type MemberOrder, useOrder } from '../api';
import { BankTransferDetails } from '../bank-transfer';
import { PaymentSettledNotice } from '../components/payment-settled-notice';
import { InvoiceForm } from '../invoice-form';
import { KonbiniVoucherDetails } from '../konbini-voucher';
import { ReceiptAction } from '../receipt-action';

function OrderFacts({ order }: { order: MemberOrder }) {
  return (
    <dl className="summary">
      <dt>ご注文番号</dt>
      <dd className="order-number">{order.order_number ?? '—'}</dd>
      <dt>ライセンス</dt>
      <dd>
        <Link to={`/licenses/${order.license_id}`}>{order.license_name}</Link>
      </dd>
      <dt>金額</dt>
      <dd>
        {formatPrice(order.amount)}（税込、うち消費税{order.tax_rate}% {formatPrice(order.tax_amount)}）
      </dd>
      <dt>お支払い方法</dt>
      <dd>{order.payment_method_label}</dd>
      <dt>状況</dt>
      <dd>
        <strong>{order.state_label}</strong>
      </dd>
      <dt>ご注文日時</dt>
      <dd>{formatJapanTime(order.ordered_at)}</dd>
      {order.paid_at ? (
        <>
          <dt>お支払い日時</dt>
          <dd>{formatJapanTime(order.paid_at)}</dd>
        </>
      ) : null}
      {order.state === 'expired' && order.expires_at ? (
        <>
          <dt>お支払い期限</dt>
          <dd>{formatJapanTime(order.expires_at)}</dd>
        </>
      ) : null}
      {order.refund_requested_at ? (
        <>
          <dt>返金</dt>
          <dd>返金手続き中（{formatJapanTime(order.refund_requested_at)}）</dd>
        </>
      ) : null}
      {order.refunded_at ? (
        <>
          <dt>返金日時</dt>
          <dd>{formatJapanTime(order.refunded_at)}</dd>
        </>
      ) : null}
    </dl>
  );
}

function OrderBody({ order, userId }: { order: MemberOrder; userId: string }) {
  return (
    <>
      <OrderFacts order={order} />
      {order.voucher ? (
        <section aria-labelledby="voucher-heading">
          <h2 id="voucher-heading">コンビニでのお支払い</h2>
          <KonbiniVoucherDetails voucher={order.voucher} amount={order.amount} />
        </section>
      ) : null}
      {order.bank_transfer ? (
        <section aria-labelledby="transfer-heading">
          <h2 id="transfer-heading">お振込先</h2>
          <BankTransferDetails bank={order.bank_transfer} />
          {order.order_number ? <InvoiceForm userId={userId} orderNumber={order.order_number} /> : null}
        </section>
      ) : null}
      {order.transfer_note ? <p className="small">{order.transfer_note}</p> : null}
      {order.state === 'refund_due' ? (
        <p className="notice">
          このお支払いは、ご購入済みのライセンスへの重複したお支払いや満席などのため、購入としては受け付けておりません。お支払い額は決済代行会社（Stripe）を通じて返金いたします。ご不明な点は
          <Link to="/contact">お問い合わせ</Link>ください。
        </p>
      ) : null}
      {order.sale_id && order.paid_at ? (
        <section aria-labelledby="receipt-heading">
          <h2 id="receipt-heading">領収書</h2>
          <ReceiptAction
            sale={{ id: order.sale_id, license_name: order.license_name, refunded_at: order.refunded_at, paid_at: order.paid_at }}
            autoOpen={false}
          />
        </section>
      ) : null}
    </>
  );
}

const SETTLED_MESSAGES = {
  paid: 'お支払いを確認しました。ご注文はお支払い済みになりました。',
  expired: 'お支払い期限が過ぎたため、このご注文は期限切れになりました。',
  refunded: 'このご注文は返金済みになりました。',
};

/** /users/{id}/orders/{order_number}: one order — what, how much, how and whether it is paid, what to do next. */
export function OrderPage() {
  const { id, orderNumber } = useParams();
  const { data, error, isLoading, mutate } = useOrder(id, orderNumber);
  return (
    <section className="card narrow">
      <h1>ご注文の内容</h1>
      <PaymentSettledNotice state={data?.order.state} messages={SETTLED_MESSAGES} />
      {isLoading ? <Loading /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data && id ? <OrderBody order={data.order} userId={id} /> : null}
      <p className="actions">
        <Link to={`/users/${id}`} className="button">
          購入履歴へ戻る
        </Link>
      </p>
    </section>
  );
}
