import { Link, useLocation, useParams, useSearchParams } from 'react-router';
import { LoadError, Loading } from '../../components/ui/load-state';
import { formatPrice } from '../../lib/format';
import { formatDateTime, formatJapanTime } from '../../lib/japan-time';
import { useSales } from './api';
import { KonbiniVoucherSummary } from './konbini-voucher';
import { ReceiptAction, ReceiptCopyAction } from './receipt-action';

/**
 * The purchase history on /users/{id}, and on /admin/users/{id} for administrators, who get the
 * receipt's 控え only (read-only: it issues nothing for the member). `?receipt=<sale id>` (the
 * purchase mail's link) opens that sale's receipt dialog.
 */
export function PurchaseHistory() {
  const { id } = useParams();
  const admin = useLocation().pathname.startsWith('/admin/');
  const receiptFor = Number(useSearchParams()[0].get('receipt')) || null;
  const { data, error, isLoading, mutate } = useSales(id);
  return (
    <section className="subsection" aria-labelledby="history-heading">
      <h2 id="history-heading">購入履歴</h2>
      {isLoading ? <Loading /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data && data.orders.length === 0 ? <p>購入したライセンスはまだありません。</p> : null}
      {admin ? null : (
        <p className="small">
          ご購入についてのご質問は<Link to="/contact?category=ご購入・お支払いについて">お問い合わせ</Link>
          からどうぞ（ご注文番号をお書き添えください）。
        </p>
      )}
      {data && data.orders.length > 0 ? (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">ご注文日時</th>
                <th scope="col">{admin ? '注文番号' : 'ご注文番号'}</th>
                <th scope="col">ライセンス</th>
                <th scope="col">金額</th>
                <th scope="col">状況</th>
                <th scope="col">領収書</th>
              </tr>
            </thead>
            <tbody>
              {data.orders.map((order) => (
                <OrderRow
                  key={order.order_number ?? order.ordered_at}
                  order={order}
                  admin={admin}
                  userId={id ?? ''}
                  receiptFor={receiptFor}
                  backOfficeLabel={data.sales.find((sale) => sale.id === order.sale_id)?.status_label}
                />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

type HistoryOrder = NonNullable<ReturnType<typeof useSales>['data']>['orders'][number];

/** One order: its number (a link to the order page for the member), state, the pending voucher or account, the receipt once paid. */
function OrderRow({
  order,
  admin,
  userId,
  receiptFor,
  backOfficeLabel,
}: {
  order: HistoryOrder;
  admin: boolean;
  userId: string;
  receiptFor: number | null;
  /** The back office's words for a paid sale (出力待ち/処理中/登録済み), shown to administrators. */
  backOfficeLabel?: string;
}) {
  const sale =
    order.sale_id && order.paid_at
      ? { id: order.sale_id, license_name: order.license_name, refunded_at: order.refunded_at, paid_at: order.paid_at }
      : null;
  return (
    <tr>
      <td>{formatDateTime(order.ordered_at)}</td>
      <td className="order-number">
        {order.order_number && !admin ? (
          <Link to={`/users/${userId}/orders/${order.order_number}`}>{order.order_number}</Link>
        ) : (
          (order.order_number ?? '—')
        )}
      </td>
      <td>{order.license_name}</td>
      <td>{formatPrice(order.amount)}</td>
      <td>
        {admin && backOfficeLabel && order.state === 'paid' ? backOfficeLabel : order.state_label}
        <span className="small" style={{ display: 'block' }}>
          {order.payment_method_label}
        </span>
        {order.refunded_amount > 0 ? (
          <span className="small" style={{ display: 'block' }}>
            返金額 {formatPrice(order.refunded_amount)}
          </span>
        ) : null}
        {order.voucher ? <KonbiniVoucherSummary voucher={order.voucher} amount={order.amount} /> : null}
        {order.bank_transfer ? (
          <span className="small" style={{ display: 'block' }}>
            お振込先 {order.bank_transfer.bank_name} {order.bank_transfer.branch_name} {order.bank_transfer.account_type_label}{' '}
            {order.bank_transfer.account_number}／お振込期限 {formatJapanTime(order.bank_transfer.expires_at)}
          </span>
        ) : null}
      </td>
      <td>
        {!sale ? (
          '—'
        ) : admin ? (
          <ReceiptCopyAction sale={sale} />
        ) : (
          <ReceiptAction sale={sale} autoOpen={receiptFor === sale.id} />
        )}
      </td>
    </tr>
  );
}
