import { Link, useSearchParams } from 'react-router';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { Pager, usePageParam } from '../../../components/ui/pager';
import { formatPrice } from '../../../lib/format';
import { formatDateTime } from '../../../lib/japan-time';
import { withParams } from '../../../lib/search-params';
import { type KonbiniListState, type KonbiniPayment, usePendingKonbini } from '../konbini-api';

const TABS: { state: KonbiniListState; label: string }[] = [
  { state: 'awaiting', label: 'お支払い待ち' },
  { state: 'lapsed', label: '期限切れ' },
];

const jst = (iso: string) => `${formatDateTime(iso)}（日本時間）`;

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
      {isLoading ? <Loading /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data && data.konbini_payments.length === 0 ? (
        <p>{state === 'awaiting' ? 'お支払いを待っている申し込みはありません。' : '期限切れになった申し込みはありません。'}</p>
      ) : null}
      {data && data.konbini_payments.length > 0 ? (
        <>
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
                  <th scope="col">金額</th>
                  <th scope="col">申し込み日時</th>
                </tr>
              </thead>
              <tbody>
                {data.konbini_payments.map((row) => (
                  <Row key={row.checkout_id} row={row} />
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            page={data.page}
            perPage={data.per_page}
            total={data.total}
            onPage={setPage}
            label={state === 'awaiting' ? 'お支払い待ちのページ送り' : '期限切れのページ送り'}
          />
        </>
      ) : null}
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
            {jst(row.lapsed_at)}
            <div className="small">お支払い期限：{formatDateTime(row.expires_at)}</div>
          </>
        ) : (
          jst(row.expires_at)
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
      <td>{row.license_name || `ライセンス（削除済み）`}</td>
      <td>{formatPrice(row.amount)}</td>
      <td>{formatDateTime(row.ordered_at)}</td>
    </tr>
  );
}
