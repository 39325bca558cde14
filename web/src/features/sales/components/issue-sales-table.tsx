import { Link } from 'react-router';
import { formatPrice } from '../../../lib/format';
import { formatDateTime } from '../../../lib/japan-time';
import { useCan } from '../../../lib/permissions';
import { type AdminSale, SaleStatus } from '../api';
import { orderDetailPath } from '../order-api';

/** A buyer whose account is gone: why, when known (older sales know only that it is gone). */
const GONE = { withdrew: '（退会済み）', deleted: '（管理者が削除）', unknown: '（アカウント削除済み）' } as const;

const buyerName = (sale: AdminSale) => `${sale.user.last_name} ${sale.user.first_name}`;

function SaleRow({
  sale,
  checked,
  movable,
  onToggle,
  onRevert,
}: {
  sale: AdminSale;
  checked: boolean;
  movable: boolean;
  onToggle: (sale: AdminSale) => void;
  onRevert: (sale: AdminSale) => void;
}) {
  const orderNumber = sale.order_number ?? `売上ID ${sale.id}`;
  return (
    <tr>
      {movable ? (
        <td>
          <input
            type="checkbox"
            aria-label={`${buyerName(sale)}さんの売上を選択`}
            checked={checked}
            disabled={Boolean(sale.refunded_at)}
            onChange={() => onToggle(sale)}
          />
        </td>
      ) : null}
      <td>
        {formatDateTime(sale.paid_at)}
        <br />
        <Link to={orderDetailPath(sale.id)} className="small order-number" aria-label={`${orderNumber} の注文の詳細`}>
          {orderNumber}
        </Link>
      </td>
      <td>
        {sale.user_id ? (
          <Link to={`/admin/users/${sale.user_id}`}>
            {sale.user.last_name} {sale.user.first_name}
          </Link>
        ) : (
          `${buyerName(sale)}${GONE[sale.buyer_gone ?? 'unknown']}`
        )}
        <br />
        <span className="small latin-break">{sale.user.email}</span>
      </td>
      <td>{sale.license_name}</td>
      <td>{formatPrice(sale.amount)}</td>
      <td>
        {sale.refunded_at ? <span className="tag">返金済み</span> : sale.status_label}
        {sale.refund_requested_at ? <span className="tag">返金手続き中</span> : null}
      </td>
      {movable ? (
        <td>
          {sale.status !== SaleStatus.AwaitingExport && !sale.refunded_at ? (
            <button
              type="button"
              className="button small"
              aria-label={`${buyerName(sale)}さんの売上を差し戻す`}
              onClick={() => onRevert(sale)}
            >
              差し戻す
            </button>
          ) : null}
        </td>
      ) : null}
    </tr>
  );
}

/** The sales of the search, each with its checkbox and 差し戻す for a role that may move sales (sales:update). */
export function IssueSalesTable({
  sales,
  selected,
  onToggle,
  onRevert,
}: {
  sales: AdminSale[];
  selected: ReadonlyMap<number, AdminSale>;
  onToggle: (sale: AdminSale) => void;
  onRevert: (sale: AdminSale) => void;
}) {
  const movable = useCan()('sales:update');
  return (
    <div className="table-wrap">
      <table className="table">
        <thead>
          <tr>
            {movable ? (
              <th scope="col">
                <span className="visually-hidden">選択</span>
              </th>
            ) : null}
            <th scope="col">購入日時・注文番号</th>
            <th scope="col">購入者</th>
            <th scope="col">ライセンス</th>
            <th scope="col">金額</th>
            <th scope="col">状態</th>
            {movable ? (
              <th scope="col">
                <span className="visually-hidden">操作</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {sales.map((sale) => (
            <SaleRow
              key={sale.id}
              sale={sale}
              checked={selected.has(sale.id)}
              movable={movable}
              onToggle={onToggle}
              onRevert={onRevert}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}
