import { useId, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ConfirmDialog } from '../../../components/ui/confirm-dialog';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { api } from '../../../lib/api';
import { formatPrice } from '../../../lib/format';
import { formatDateTime } from '../../../lib/japan-time';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { type OrderBuyer, type OrderDetail, type OrderMail, useOrderDetail } from '../order-api';
import '../order-detail.css';

const jst = (iso: string | null) => (iso ? `${formatDateTime(iso)}（日本時間）` : '—');
const yen = (n: number) => `¥${n.toLocaleString('ja-JP')}`;

const MAIL_STATUS: Record<OrderMail['status'], string> = { sending: '送信中', sent: '送信済み', failed: '送信失敗' };

/** /admin/sales/{id}: one order — what was bought, how it was paid, by whom, what happened to it since. */
export function OrderDetailPage() {
  const { id = '' } = useParams();
  const { data, error, isLoading, mutate } = useOrderDetail(id);
  const sale = data?.sale;
  return (
    <section className="card order-detail">
      <p className="small">
        <Link to="/admin/licenses/issue">ライセンス発行（売上の一覧）へ戻る</Link>
      </p>
      <h1>
        注文の詳細
        {sale?.order_number ? <span className="order-detail-number">注文番号 {sale.order_number}</span> : null}
      </h1>
      {isLoading ? <Loading label="注文を読み込んでいます…" /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {sale ? <OrderBody sale={sale} onChanged={() => void mutate()} /> : null}
    </section>
  );
}

function OrderBody({ sale, onChanged }: { sale: OrderDetail; onChanged: () => void }) {
  return (
    <>
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

      <RefundSection sale={sale} onChanged={onChanged} />

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

      <section className="subsection" aria-labelledby="mails-heading">
        <h2 id="mails-heading">この注文について送信したメール</h2>
        {sale.mails.length === 0 ? (
          <p>この注文について送信したメールはありません。</p>
        ) : (
          <div className="table-wrap">
            <table className="table">
              <caption className="visually-hidden">この注文について送信したメール</caption>
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
    </>
  );
}

function StateText({ sale }: { sale: OrderDetail }) {
  if (sale.refund.state === 'refunded') return <span className="tag">返金済み</span>;
  return (
    <>
      {sale.status_label}
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

/** 返金: the state, and for a paid sale the refund asked of Stripe after the app's confirmation dialog. */
function RefundSection({ sale, onChanged }: { sale: OrderDetail; onChanged: () => void }) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [told, setTold] = useState(false);
  const [notice, setNotice] = useState('');
  const { busy, message, errors, run } = useFormSubmit();
  const reasonId = useId();
  const buyer = `${sale.buyer_at_purchase.last_name} ${sale.buyer_at_purchase.first_name}`.trim();
  const refundable = sale.refund.state === 'none' && Boolean(sale.stripe_payment_intent_id);

  const confirm = () => {
    void run(async () => {
      const res = await api<{ message: string }>(`/api/sales/${sale.id}/refund`, {
        method: 'POST',
        body: { reason, confirm_exported: sale.exported ? told : false },
      });
      setOpen(false);
      setReason('');
      setTold(false);
      setNotice(res.message);
      onChanged();
    });
  };

  return (
    <section className="subsection" aria-labelledby="refund-heading">
      <h2 id="refund-heading">返金</h2>
      {notice ? <Notice>{notice}</Notice> : null}
      {sale.refund.state === 'refunded' ? (
        <p>
          <span className="tag">返金済み</span> {jst(sale.refund.refunded_at)}に Stripe で返金が確定しました。
        </p>
      ) : null}
      {sale.refund.state === 'requested' ? (
        <p role="status">
          <span className="tag">返金手続き中</span> Stripe に返金を依頼しました。完了の通知が届くと「返金済み」になります。
        </p>
      ) : null}
      {sale.refund.requested_at ? (
        <dl className="summary">
          <dt>返金の依頼</dt>
          <dd>
            {jst(sale.refund.requested_at)}
            {sale.refund.requested_by ? `（${sale.refund.requested_by}）` : ''}
          </dd>
          <dt>返金の理由</dt>
          <dd>{sale.refund.reason ?? '—'}</dd>
        </dl>
      ) : null}
      {sale.refund.state === 'none' && !sale.stripe_payment_intent_id ? (
        <p>
          この売上には Stripe の支払いIDの記録がないため、管理画面からは返金できません。Stripe
          のダッシュボードで返金してください。
        </p>
      ) : null}
      {refundable ? (
        <>
          <p className="small">代金の全額を Stripe で返金します。返金が確定すると、購入者に返金のお知らせメールが届きます。</p>
          <button type="button" className="button danger" aria-haspopup="dialog" onClick={() => setOpen(true)}>
            返金する
          </button>
        </>
      ) : null}
      <ConfirmDialog
        open={open}
        title="返金の確認"
        confirmLabel="全額を返金する"
        danger
        busy={busy}
        confirmDisabled={sale.exported && !told}
        onConfirm={confirm}
        onCancel={() => setOpen(false)}
      >
        <p>
          注文番号 {sale.order_number ?? `（売上ID ${sale.id}）`}（{sale.license_name}、{buyer || '購入者'} 様）の代金{' '}
          <strong>{formatPrice(sale.amount)}</strong> を全額返金します。返金は取り消せません。
        </p>
        {sale.exported ? (
          <div className="alert">
            <p>
              この売上は研修管理システム向けに出力済みです（現在：{sale.status_label}
              ）。返金後、研修管理システムでの登録の取り消しを担当者に連絡してください。
            </p>
          </div>
        ) : null}
        <div className="field">
          <div className="field-label">
            <label htmlFor={reasonId}>返金の理由</label>
            <span className="required" aria-hidden="true">
              必須
            </span>
          </div>
          <textarea
            id={reasonId}
            name="reason"
            rows={3}
            maxLength={200}
            required
            value={reason}
            aria-invalid={errors.reason ? true : undefined}
            aria-describedby={errors.reason ? `${reasonId}-message` : undefined}
            onChange={(event) => setReason(event.currentTarget.value)}
          />
          {errors.reason ? (
            <p id={`${reasonId}-message`} className="field-message">
              {errors.reason}
            </p>
          ) : null}
        </div>
        {sale.exported ? (
          <div className="field checkbox-field">
            <input
              id={`${reasonId}-told`}
              type="checkbox"
              name="confirm_exported"
              checked={told}
              onChange={(event) => setTold(event.currentTarget.checked)}
            />
            <label htmlFor={`${reasonId}-told`}>研修管理システムに登録の取り消しを連絡します</label>
          </div>
        ) : null}
        <FormAlert message={message} errors={errors} fields={['reason']} />
      </ConfirmDialog>
    </section>
  );
}
