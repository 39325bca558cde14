import { Link } from 'react-router';
import { formatPrice } from '../../../lib/format';
import { formatDateTime, formatJapanTime } from '../../../lib/japan-time';
import type { OrderBuyer, OrderDetail, OrderMail } from '../order-api';

/** A moment of the order, said to be Japan time. */
export const jst = (iso: string | null) => (iso ? formatJapanTime(iso) : '—');
const yen = (n: number) => `¥${n.toLocaleString('ja-JP')}`;

const MAIL_STATUS: Record<OrderMail['status'], string> = { sending: '送信中', sent: '送信済み', failed: '送信失敗' };

function StateText({ sale }: { sale: OrderDetail }) {
  if (sale.refund.state === 'refunded') return <span className="tag">返金済み</span>;
  return (
    <>
      {sale.status_label}
      {sale.refund.state === 'partially_refunded' ? (
        <>
          {' '}
          <span className="tag">一部返金（{yen(sale.refund.refunded_amount)}）</span>
        </>
      ) : null}
      {sale.refund.state === 'requested' ? (
        <>
          {' '}
          <span className="tag">返金手続き中</span>
        </>
      ) : null}
    </>
  );
}

function BuyerFacts({ buyer }: { buyer: OrderBuyer }) {
  const affiliation =
    buyer.affiliation_label && buyer.affiliation_other
      ? `${buyer.affiliation_label}（${buyer.affiliation_other}）`
      : buyer.affiliation_label || '—';
  return (
    <dl className="summary">
      <dt>氏名</dt>
      <dd>
        {buyer.last_name} {buyer.first_name}
      </dd>
      <dt>メールアドレス</dt>
      <dd className="order-detail-id">{buyer.email || '—'}</dd>
      <dt>所属</dt>
      <dd>{affiliation}</dd>
      <dt>所属名</dt>
      <dd>{buyer.affiliation_name || '—'}</dd>
    </dl>
  );
}

/** What was bought, for how much, how it was paid, and its ids at Stripe and here. */
export function OrderFacts({ sale }: { sale: OrderDetail }) {
  return (
    <dl className="summary">
      <dt>注文番号</dt>
      <dd className="order-number">{sale.order_number ?? '（なし）'}</dd>
      <dt>状態</dt>
      <dd>
        <StateText sale={sale} />
      </dd>
      <dt>ライセンス</dt>
      <dd>
        <Link to={`/admin/licenses/${sale.license_id}`}>{sale.license_name}</Link>
      </dd>
      <dt>金額</dt>
      <dd>
        {formatPrice(sale.amount)}
        <span className="small">（うち消費税 {yen(sale.tax)}）</span>
      </dd>
      <dt>お支払い方法</dt>
      <dd>
        {sale.payment_method_label}
        {sale.payment_method === 'konbini' && sale.konbini_expires_at ? (
          <span className="small">（お支払い期限 {jst(sale.konbini_expires_at)}）</span>
        ) : null}
      </dd>
      <dt>お支払い日時</dt>
      <dd>{jst(sale.paid_at)}</dd>
      <dt>返金日時</dt>
      <dd>{sale.refunded_at ? jst(sale.refunded_at) : '—'}</dd>
      <dt>Stripe の決済セッションID</dt>
      <dd className="order-detail-id">
        <code>{sale.stripe_session_id}</code>
        <br />
        <Link to={`/admin/payments?${new URLSearchParams({ session: sale.stripe_session_id })}#inbox`}>
          決済の受信箱でこの注文のイベントを見る
        </Link>
      </dd>
      <dt>Stripe の支払いID</dt>
      <dd className="order-detail-id">{sale.stripe_payment_intent_id ? <code>{sale.stripe_payment_intent_id}</code> : '—'}</dd>
      <dt>内部の売上ID</dt>
      <dd>{sale.id}</dd>
    </dl>
  );
}

/** The buyer as a member now and as they were when buying. */
export function OrderBuyers({ sale }: { sale: OrderDetail }) {
  return (
    <section className="subsection" aria-labelledby="buyer-heading">
      <h2 id="buyer-heading">購入者</h2>
      <div className="order-detail-buyers">
        <div>
          <h3>現在の会員情報</h3>
          {sale.buyer_now ? (
            <>
              <BuyerFacts buyer={sale.buyer_now} />
              <p>
                <Link to={`/admin/users/${sale.buyer_now.id}`}>
                  {sale.buyer_now.last_name} {sale.buyer_now.first_name}さんのユーザー詳細
                </Link>
              </p>
            </>
          ) : (
            <p>会員は削除されたか退会しています（購入時の情報のみ残っています）。</p>
          )}
        </div>
        <div>
          <h3>購入時の情報</h3>
          <BuyerFacts buyer={sale.buyer_at_purchase} />
        </div>
      </div>
    </section>
  );
}

/** 状態の履歴: every move of the order, who made it and why. */
export function OrderHistory({ sale }: { sale: OrderDetail }) {
  return (
    <section className="subsection" aria-labelledby="history-heading">
      <h2 id="history-heading">状態の履歴</h2>
      <ol className="order-history">
        {sale.history.map((item) => (
          <li key={`${item.at}-${item.kind}-${item.label}`}>
            <span className="order-history-at">{jst(item.at)}</span>
            <span>{item.label}</span>
            {item.actor_email ? <span className="small">操作：{item.actor_email}</span> : null}
            {item.reason ? <span className="small">理由：{item.reason}</span> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The member's receipt: how often issued, when, and to whom. */
export function OrderReceipt({ sale }: { sale: OrderDetail }) {
  return (
    <section className="subsection" aria-labelledby="receipt-heading">
      <h2 id="receipt-heading">領収書</h2>
      {sale.receipt.issue_count === 0 ? (
        <p>会員はまだ領収書を発行していません。</p>
      ) : (
        <dl className="summary">
          <dt>発行回数</dt>
          <dd>{sale.receipt.issue_count}回</dd>
          <dt>初回の発行</dt>
          <dd>{jst(sale.receipt.first_issued_at)}</dd>
          <dt>最後の発行</dt>
          <dd>{jst(sale.receipt.last_issued_at)}</dd>
          <dt>宛名</dt>
          <dd>{sale.receipt.addressee ?? '—'}</dd>
        </dl>
      )}
    </section>
  );
}

/** The mails sent about this order. */
export function OrderMails({ sale }: { sale: OrderDetail }) {
  return (
    <section className="subsection" aria-labelledby="mails-heading">
      <h2 id="mails-heading">この注文について送信したメール</h2>
      {sale.mails.length === 0 ? (
        <p>この注文について送信したメールはありません。</p>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">日時</th>
                <th scope="col">種類</th>
                <th scope="col">宛先</th>
                <th scope="col">状態</th>
              </tr>
            </thead>
            <tbody>
              {sale.mails.map((mail) => (
                <tr key={mail.id}>
                  <td>{formatDateTime(mail.sent_at ?? mail.created_at)}</td>
                  <td>{mail.kind_label}</td>
                  <td className="order-detail-id">{mail.recipient}</td>
                  <td>{mail.status === 'failed' && mail.permanent ? '送信不可（宛先が拒否）' : MAIL_STATUS[mail.status]}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
