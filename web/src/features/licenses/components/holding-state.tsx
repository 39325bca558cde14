import { Link } from 'react-router';
import { formatLongDate, formatMonthDayTime } from '../../../lib/japan-time';
import type { Holding } from '../api/licenses';

/** 「2026年11月25日に購入済み」 (the date in Japan time). */
const purchasedLabel = (holding: Holding) =>
  holding.purchased_at ? `${formatLongDate(holding.purchased_at)}に購入済み` : '購入済み';

/** お振込待ち for a bank transfer, コンビニ支払い待ち for a konbini payment. */
const pendingLabel = (holding: Holding) => (holding.payment_method === 'bank_transfer' ? 'お振込待ち' : 'コンビニ支払い待ち');

/** The short mark on a catalogue card (nothing for a licence the member neither holds nor is paying for). */
export function HoldingBadge({ holding }: { holding: Holding | undefined }) {
  if (!holding) return null;
  return (
    <span className="card-holding">
      <span className="tag">{holding.state === 'purchased' ? '購入済み' : pendingLabel(holding)}</span>
      {holding.state === 'purchased' ? <span className="small">{purchasedLabel(holding)}</span> : null}
    </span>
  );
}

/** What the detail page shows in place of the buy button for a licence the member holds or is paying for. */
export function HoldingState({ holding, historyUrl }: { holding: Holding; historyUrl: string }) {
  if (holding.state === 'purchased') {
    return (
      <div className="holding-state notice" role="status">
        <p>
          <strong>{purchasedLabel(holding)}</strong>
          {holding.order_number ? (
            <>
              （ご注文番号 <span className="order-number">{holding.order_number}</span>）
            </>
          ) : null}
        </p>
        <p className="small">
          このライセンスはご購入済みのため、もう一度購入する必要はありません。<Link to={historyUrl}>購入履歴を見る</Link>
        </p>
      </div>
    );
  }
  if (holding.payment_method === 'bank_transfer') return <TransferPending holding={holding} historyUrl={historyUrl} />;
  return (
    <div className="holding-state notice" role="status">
      <p>
        <strong>コンビニ支払い待ち</strong>
        {holding.expires_at ? `（お支払い期限 ${formatMonthDayTime(holding.expires_at)}・日本時間）` : null}
      </p>
      <p className="small">
        このライセンスはコンビニでのお支払いをお待ちしています。お支払い番号に沿って期限までにお支払いください。
        {holding.voucher_url ? (
          <>
            <a href={holding.voucher_url} target="_blank" rel="noreferrer">
              お支払い方法（払込票）を表示する
            </a>
            ／
          </>
        ) : null}
        <Link to={historyUrl}>購入履歴で確認する</Link>
      </p>
    </div>
  );
}

/** A bank transfer awaited: お振込, with the way to the order page that shows the account. */
function TransferPending({ holding, historyUrl }: { holding: Holding; historyUrl: string }) {
  const orderUrl = holding.order_number ? `${historyUrl}/orders/${holding.order_number}` : historyUrl;
  return (
    <div className="holding-state notice" role="status">
      <p>
        <strong>お振込待ち</strong>
        {holding.expires_at ? `（お振込期限 ${formatMonthDayTime(holding.expires_at)}・日本時間）` : null}
      </p>
      <p className="small">
        このライセンスは銀行振込でのお支払いをお待ちしています。お振込先（お客さま専用口座）へ、期限までにお振り込みください。
        <Link to={orderUrl}>ご注文の内容（お振込先）を見る</Link>
      </p>
    </div>
  );
}
