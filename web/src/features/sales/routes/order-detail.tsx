import { Link, useParams } from 'react-router';
import { NotesTimeline } from '../../../components/notes-timeline';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { ApiError } from '../../../lib/api';
import { useCan } from '../../../lib/permissions';
import { OrderBuyers, OrderFacts, OrderHistory, OrderMails, OrderReceipt } from '../components/order-facts';
import { ReceiptCopyMail } from '../components/receipt-copy-mail';
import { RefundSection } from '../components/refund-section';
import { ResendPurchaseMail } from '../components/resend-mail';
import { type OrderDetail, useOrderDetail } from '../order-api';
import '../order-detail.css';

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
      {error instanceof ApiError && error.status === 404 ? <OrderNotFound /> : null}
      {error && !(error instanceof ApiError && error.status === 404) ? (
        <LoadError error={error} onRetry={() => void mutate()} />
      ) : null}
      {sale ? <OrderBody sale={sale} onChanged={() => void mutate()} /> : null}
    </section>
  );
}

function OrderNotFound() {
  return (
    <>
      <div className="alert" role="alert">
        <p>この注文は見つかりませんでした。URL が正しいかご確認ください。</p>
      </div>
      <ul className="way-on">
        <li>
          <Link to="/admin/licenses/issue">売上の一覧へ</Link>
        </li>
        <li>
          <Link to="/admin">管理メニューへ</Link>
        </li>
      </ul>
    </>
  );
}

function OrderBody({ sale, onChanged }: { sale: OrderDetail; onChanged: () => void }) {
  const can = useCan();
  return (
    <>
      <OrderFacts sale={sale} />
      <RefundSection sale={sale} canRefund={can('sales:refund')} onChanged={onChanged} />
      <OrderBuyers sale={sale} />
      <OrderHistory sale={sale} />
      <OrderReceipt sale={sale} />
      <NotesTimeline path={`/api/sales/${sale.id}/notes`} subject="この注文" canAdd={can('sales:update')} />
      {can('members:update') ? <ReceiptCopyMail sale={sale} /> : null}
      <OrderMails sale={sale} />
      {can('mails:resend') ? <ResendPurchaseMail sale={sale} onChanged={onChanged} /> : null}
    </>
  );
}
