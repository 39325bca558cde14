import { useCan } from '../../../lib/permissions';
import { InboxSection } from '../components/inbox-section';
import { ReconciliationSection } from '../components/reconciliation-section';
import '../payments.css';

/** /admin/payments: the Stripe event inbox (with replay) and the reconciliation of payments with sales. */
export function AdminPaymentsPage() {
  const canReplay = useCan()('payments:update');
  return (
    <section className="card">
      <h1>決済の受信箱と照合</h1>
      <p className="lead">
        Stripe から届いたイベントと、その処理の結果です。
        {canReplay ? '失敗したイベントは原因を確かめてから再実行できます（何度実行しても売上やメールは二重になりません）。' : ''}
      </p>
      <ReconciliationSection />
      <InboxSection />
    </section>
  );
}
