import { Link } from 'react-router';
import type { SalesSummary } from '../summary-api';
import { periodLabel } from '../summary-period';
import { count } from './sale-counts';

const yen = (n: number) => `${n < 0 ? '−' : ''}¥${Math.abs(n).toLocaleString('ja-JP')}`;

/** The period's totals: sales, tax, refunds and the net. */
function SummaryTotals({ summary }: { summary: SalesSummary }) {
  return (
    <dl className="counts summary-totals" aria-label={`${periodLabel(summary)}の合計`}>
      <div>
        <dt>件数</dt>
        <dd>{count(summary.count)}</dd>
      </div>
      <div>
        <dt>売上金額（税込）</dt>
        <dd>{yen(summary.amount)}</dd>
      </div>
      <div>
        <dt>うち消費税</dt>
        <dd>{yen(summary.tax)}</dd>
      </div>
      <div>
        <dt>返金件数</dt>
        <dd>{count(summary.refunded_count)}</dd>
      </div>
      <div>
        <dt>返金額</dt>
        <dd>{yen(summary.refunded_amount)}</dd>
      </div>
      <div className="summary-net">
        <dt>純売上</dt>
        <dd>{yen(summary.net_amount)}</dd>
      </div>
    </dl>
  );
}

/** ライセンス別, with the totals as its last row. */
function SummaryTable({ summary }: { summary: SalesSummary }) {
  return (
    <div className="table-wrap">
      <table className="table summary-table" aria-labelledby="summary-by-license">
        <thead>
          <tr>
            <th scope="col">ライセンス</th>
            <th scope="col">件数</th>
            <th scope="col">売上金額（税込）</th>
            <th scope="col">うち消費税</th>
            <th scope="col">返金件数</th>
            <th scope="col">返金額</th>
            <th scope="col">純売上</th>
          </tr>
        </thead>
        <tbody>
          {summary.by_license.map((row) => (
            <tr key={row.license_id}>
              <th scope="row" data-label="ライセンス">
                <Link to={`/admin/licenses/${row.license_id}`}>{row.name}</Link>
              </th>
              <td data-label="件数">{count(row.count)}</td>
              <td data-label="売上金額（税込）">{yen(row.amount)}</td>
              <td data-label="うち消費税">{yen(row.tax)}</td>
              <td data-label="返金件数">{count(row.refunded_count)}</td>
              <td data-label="返金額">{yen(row.refunded_amount)}</td>
              <td data-label="純売上">{yen(row.amount - row.refunded_amount)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" data-label="ライセンス">
              合計
            </th>
            <td data-label="件数">{count(summary.count)}</td>
            <td data-label="売上金額（税込）">{yen(summary.amount)}</td>
            <td data-label="うち消費税">{yen(summary.tax)}</td>
            <td data-label="返金件数">{count(summary.refunded_count)}</td>
            <td data-label="返金額">{yen(summary.refunded_amount)}</td>
            <td data-label="純売上">{yen(summary.net_amount)}</td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}

/** The report of one period: its totals, what they count, and per licence. */
export function SummaryReport({ summary }: { summary: SalesSummary }) {
  const empty = summary.count === 0 && summary.refunded_count === 0;
  return (
    <section className="subsection" aria-labelledby="summary-heading">
      <h2 id="summary-heading">{periodLabel(summary)}の集計</h2>
      {summary.count === 0 ? <p>この期間の売上はありません。</p> : null}
      {empty ? null : (
        <>
          <SummaryTotals summary={summary} />
          <ul className="small summary-notes">
            <li>売上金額は、この期間にお支払いが完了した売上の合計です（その後に返金したものも含みます）。</li>
            <li>返金件数・返金額は、この期間に返金した売上です（お支払いが前の期間のものも含みます）。</li>
            <li>純売上 ＝ 売上金額 − 返金額。</li>
            <li>
              消費税は10%の内税で、領収書と同じく1件ごとに1円未満を切り捨てて合計しています（返金分の消費税は
              {yen(summary.refunded_tax)}）。
            </li>
          </ul>
          <h3 id="summary-by-license">ライセンス別</h3>
          <SummaryTable summary={summary} />
        </>
      )}
    </section>
  );
}
