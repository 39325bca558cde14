import { Link, useParams } from 'react-router';
import { LoadError, Loading } from '../../components/ui/load-state';
import { formatPrice } from '../../lib/format';
import { formatDateTime } from '../../lib/japan-time';
import { useSales } from './api';
import { ReceiptAction } from './receipt-action';

/** On the 退会 page: every receipt the member can still download, before the history is gone. */
export function ReceiptsBeforeWithdrawal() {
  const { id } = useParams();
  const { data, error, isLoading, mutate } = useSales(id);
  const receipts = data?.sales.filter((sale) => sale.paid_at && !sale.refunded_at) ?? [];
  return (
    <section className="subsection" aria-labelledby="receipts-heading">
      <h2 id="receipts-heading">退会の前に領収書をダウンロードしてください</h2>
      <p>
        退会すると購入履歴は表示できなくなります。経理などで領収書が必要な場合は、いまダウンロードしてください。退会後に必要になった場合は、
        <Link to="/contact?category=領収書の再発行（退会済みの方）">お問い合わせ</Link>
        からご連絡いただければ、控えをメールでお送りします。
      </p>
      {isLoading ? <Loading /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data && receipts.length === 0 ? <p>発行できる領収書はありません。</p> : null}
      {receipts.length > 0 ? (
        <ul className="receipt-list">
          {receipts.map((sale) => (
            <li key={sale.id}>
              <span>
                {formatDateTime(sale.paid_at)}　{sale.license_name}　{formatPrice(sale.amount)}
                {sale.order_number ? `（ご注文番号 ${sale.order_number}）` : ''}
              </span>
              <ReceiptAction sale={sale} />
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
