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
      {data && data.sales.length + data.konbini_orders.length === 0 ? <p>購入したライセンスはまだありません。</p> : null}
      {admin ? null : (
        <p className="small">
          ご購入についてのご質問は<Link to="/contact?category=ご購入・お支払いについて">お問い合わせ</Link>
          からどうぞ（ご注文番号をお書き添えください）。
        </p>
      )}
      {data && data.sales.length + data.konbini_orders.length > 0 ? (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">購入日時</th>
                <th scope="col">{admin ? '注文番号' : 'ご注文番号'}</th>
                <th scope="col">ライセンス</th>
                <th scope="col">金額</th>
                <th scope="col">状況</th>
                <th scope="col">領収書</th>
              </tr>
            </thead>
            <tbody>
              {data.konbini_orders.map((order) => (
                <tr key={order.checkout_id}>
                  <td>{formatDateTime(order.ordered_at)}</td>
                  <td>
                    <span className="small">お支払い後に発行</span>
                  </td>
                  <td>{order.license_name}</td>
                  <td>{formatPrice(order.amount)}</td>
                  <td>
                    {order.state_label}
                    {order.voucher ? <KonbiniVoucherSummary voucher={order.voucher} amount={order.amount} /> : null}
                    {!order.voucher && order.expires_at ? (
                      <span className="small" style={{ display: 'block' }}>
                        お支払い期限 {formatJapanTime(order.expires_at)}
                      </span>
                    ) : null}
                  </td>
                  <td>—</td>
                </tr>
              ))}
              {data.sales.map((sale) => (
                <tr key={sale.id}>
                  <td>{formatDateTime(sale.paid_at)}</td>
                  <td className="order-number">{sale.order_number ?? '—'}</td>
                  <td>{sale.license_name}</td>
                  <td>{formatPrice(sale.amount)}</td>
                  {/* The back office's words for an administrator (出力待ち/処理中/登録済み/返金済み), the member's own for them. */}
                  <td>{admin ? (sale.refunded_at ? '返金済み' : sale.status_label) : sale.member_state_label}</td>
                  <td>
                    {admin ? <ReceiptCopyAction sale={sale} /> : <ReceiptAction sale={sale} autoOpen={receiptFor === sale.id} />}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
