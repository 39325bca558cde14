import { Link } from 'react-router';
import { formatDateTime } from '../../../lib/japan-time';
import type { InboxEvent } from '../api';
import { FlaggedRefund } from './flagged-refund';
import { money } from './money';

const STATE_LABEL: Record<InboxEvent['state'], string> = { received: '未処理', processed: '処理済み', failed: '失敗' };

/** The member who paid (a link to them) and the amount, as the inbox row shows them. */
function InboxBuyer({ event }: { event: InboxEvent }) {
  return (
    <>
      {event.buyer ? (
        <>
          <Link to={`/admin/users/${event.buyer.user_id}`}>{event.buyer.name}</Link>
          <div className="small inbox-email">{event.buyer.email}</div>
        </>
      ) : event.buyer_deleted ? (
        <div className="small">削除された会員</div>
      ) : (
        <div className="small">会員の記録なし</div>
      )}
      {event.amount !== null ? <div>{money(event.amount, event.currency)}</div> : null}
    </>
  );
}

function InboxRow({
  event,
  busy,
  onReplay,
  onChanged,
}: {
  event: InboxEvent;
  busy: boolean;
  onChanged: () => void;
  /** Absent for a role that may not replay (payments:update): no column. */
  onReplay?: (event: InboxEvent) => void;
}) {
  return (
    <tr>
      <td>{formatDateTime(event.received_at)}</td>
      <td>
        {event.type_label}
        <div className="small">イベントID：{event.id}</div>
        {event.order_number ? (
          <div className="small">
            注文番号 {event.sale_id ? <Link to={`/admin/sales/${event.sale_id}`}>{event.order_number}</Link> : event.order_number}
          </div>
        ) : null}
      </td>
      <td>
        <InboxBuyer event={event} />
      </td>
      <td>{event.state === 'processed' ? STATE_LABEL[event.state] : <span className="tag">{STATE_LABEL[event.state]}</span>}</td>
      <td>
        {event.state === 'failed' ? (
          <>
            <div>{event.error}</div>
            {event.failed_at ? <div className="small">{formatDateTime(event.failed_at)} に失敗</div> : null}
          </>
        ) : (
          (event.outcome_label ?? '処理待ち')
        )}
        {event.refund && event.stripe_session_id ? (
          <FlaggedRefund sessionId={event.stripe_session_id} refund={event.refund} onChanged={onChanged} />
        ) : null}
      </td>
      <td>{event.attempts}回</td>
      {onReplay ? (
        <td>
          <button
            type="button"
            className="button"
            aria-label={`${event.type_label}（${event.id}）を再実行`}
            disabled={busy}
            onClick={() => onReplay(event)}
          >
            再実行
          </button>
        </td>
      ) : null}
    </tr>
  );
}

/** The Stripe events received, each with its buyer, outcome and (given `onReplay`) 再実行. */
export function InboxTable({
  events,
  busy,
  onReplay,
  onChanged,
}: {
  events: InboxEvent[];
  busy: boolean;
  /** A flagged payment was refunded from its row: the list is read again. */
  onChanged: () => void;
  onReplay?: (event: InboxEvent) => void;
}) {
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className="visually-hidden">受信した Stripe イベント</caption>
        <thead>
          <tr>
            <th scope="col">受信日時</th>
            <th scope="col">種類</th>
            <th scope="col">購入者・金額</th>
            <th scope="col">状態</th>
            <th scope="col">結果・エラー</th>
            <th scope="col">試行</th>
            {onReplay ? (
              <th scope="col">
                <span className="visually-hidden">操作</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {events.map((event) => (
            <InboxRow key={event.id} event={event} busy={busy} onReplay={onReplay} onChanged={onChanged} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
