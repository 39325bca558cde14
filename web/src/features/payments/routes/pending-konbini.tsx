import { Link, useSearchParams } from 'react-router';
import { PagedTable, pageOf } from '../../../components/ui/paged-table';
import { usePageParam } from '../../../components/ui/pager';
import { formatPrice } from '../../../lib/format';
import { formatDateTime, formatJapanTime } from '../../../lib/japan-time';
import { withParams } from '../../../lib/search-params';
import { type KonbiniListState, type KonbiniPayment, usePendingKonbini } from '../konbini-api';

const TABS: { state: KonbiniListState; label: string }[] = [
  { state: 'awaiting', label: 'お支払い待ち' },
  { state: 'lapsed', label: '期限切れ' },
];

/**
 * /admin/payments/konbini: konbini payments the shop is waiting for (nearest deadline first) and
 * those that lapsed unpaid (latest first). Neither is a sale yet: no 注文番号 until paid.
 */
export function PendingKonbiniPage() {
  const [params, setParams] = useSearchParams();
  const state: KonbiniListState = params.get('state') === 'lapsed' ? 'lapsed' : 'awaiting';
  const { page, setPage } = usePageParam();
  const { data, error, isLoading, mutate } = usePendingKonbini(state, page);
  const choose = (next: KonbiniListState) => setParams(withParams(params, { state: next === 'awaiting' ? '' : next, page: '' }));

  return (
    <section className="card">
      <h1>コンビニ払いのお支払い待ち</h1>
      <p className="lead">
        コンビニ払いを選んだ会員のお支払いを待っている申し込みと、期限までに支払われず失効した申し込みです。お支払いが確認されると売上になり、注文番号が付きます。
      </p>
      <nav className="actions" aria-label="表示する申し込み">
        {TABS.map((tab) => (
          <button
            key={tab.state}
            type="button"
            className={`button${tab.state === state ? ' primary' : ''}`}
            aria-pressed={tab.state === state}
            onClick={() => choose(tab.state)}
          >
            {tab.label}
            {data ? `（${data.totals[tab.state].toLocaleString('ja-JP')}件）` : ''}
          </button>
        ))}
      </nav>
      <PagedTable
        list={pageOf(data, (d) => d.konbini_payments)}
        isLoading={isLoading}
        error={error}
        onRetry={() => void mutate()}
        empty={
          <p>{state === 'awaiting' ? 'お支払いを待っている申し込みはありません。' : '期限切れになった申し込みはありません。'}</p>
        }
        pagerLabel={state === 'awaiting' ? 'お支払い待ちのページ送り' : '期限切れのページ送り'}
        onPage={setPage}
      >
        {(rows) => (
          <div className="table-wrap">
            <table className="table">
              <caption className="visually-hidden">
                {state === 'awaiting' ? 'お支払い待ちの申し込み' : '期限切れの申し込み'}
              </caption>
              <thead>
                <tr>
                  <th scope="col">{state === 'awaiting' ? 'お支払い期限' : '失効日時'}</th>
                  <th scope="col">会員</th>
                  <th scope="col">ライセンス</th>
                  <th scope="col">お支払い方法</th>
                  <th scope="col">金額</th>
                  <th scope="col">申し込み日時</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <Row key={row.checkout_id} row={row} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </PagedTable>
    </section>
  );
}

function Row({ row }: { row: KonbiniPayment }) {
  const name = row.user ? `${row.user.last_name} ${row.user.first_name}`.trim() : '';
  return (
    <tr>
      <td>
        {row.state === 'lapsed' && row.lapsed_at ? (
          <>
            {formatJapanTime(row.lapsed_at)}
            <div className="small">お支払い期限：{formatDateTime(row.expires_at)}</div>
          </>
        ) : (
          formatJapanTime(row.expires_at)
        )}
      </td>
      <td style={{ overflowWrap: 'anywhere' }}>
        {row.user && row.user_id ? (
          <>
            <Link to={`/admin/users/${row.user_id}`}>{name || row.user.email}</Link>
            <div className="small">{row.user.email}</div>
          </>
        ) : (
          '（削除された会員）'
        )}
      </td>
      <td>
        {row.license_name || `ライセンス（削除済み）`}
        {row.order_number ? <div className="small order-number">{row.order_number}</div> : null}
      </td>
      <td>{row.payment_method_label}</td>
      <td>{formatPrice(row.amount)}</td>
      <td>{formatDateTime(row.ordered_at)}</td>
    </tr>
  );
}
