import { Link } from 'react-router';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { type Dashboard as Figures, useDashboard } from '../api';

const yen = (n: number) => `${n.toLocaleString('ja-JP')}円`;
const count = (n: number) => `${n.toLocaleString('ja-JP')}件`;
const shortDay = (date: string) => `${Number(date.slice(5, 7))}/${Number(date.slice(8, 10))}`;

type Period = Figures['today'];

function PeriodFigures({ title, period }: { title: string; period: Period }) {
  const range = `from=${period.from}&to=${period.to}`;
  return (
    <div className="dashboard-period">
      <h3>{title}</h3>
      <dl className="counts">
        <div>
          <dt>
            <Link to={`/admin/sales/summary?${range}`}>売上</Link>
          </dt>
          <dd>
            {count(period.count)}・{yen(period.amount)}
          </dd>
        </div>
        <div>
          <dt>
            <Link to={`/admin/sales/summary?${range}`}>返金</Link>
          </dt>
          <dd>
            {count(period.refunded_count)}・{yen(period.refunded_amount)}
          </dd>
        </div>
        <div>
          <dt>
            <Link to={`/admin/users?created_from=${period.from}&created_to=${period.to}`}>新規会員</Link>
          </dt>
          <dd>{count(period.new_members)}</dd>
        </div>
      </dl>
    </div>
  );
}

function Waiting({ data }: { data: Figures }) {
  const items = [
    { label: '出力待ちの売上', to: '/admin/licenses/issue?status=0', n: data.awaiting_export },
    { label: 'コンビニ払いのお支払い待ち', to: '/admin/payments/konbini', n: data.konbini_awaiting },
    { label: '銀行振込のお支払い待ち', to: '/admin/payments', n: data.bank_transfer_awaiting },
    { label: '送信に失敗したメール', to: '/admin/mails', n: data.failed_mails },
    { label: '未確認の照合の差異', to: '/admin/payments', n: data.reconciliations_flagged },
  ];
  return (
    <div className="dashboard-period">
      <h3>対応待ち</h3>
      <dl className="counts">
        {items.map((item) => (
          <div key={item.label}>
            <dt>
              <Link to={item.to}>{item.label}</Link>
            </dt>
            <dd>{count(item.n)}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

/** 30 days of sales as bars (a picture of the table beside it, which carries the figures). */
function SalesChart({ series }: { series: Figures['series'] }) {
  const max = Math.max(1, ...series.map((d) => d.amount));
  const width = 600;
  const height = 160;
  const bar = width / series.length;
  return (
    <svg className="dashboard-chart" viewBox={`0 0 ${width} ${height + 20}`} role="img" aria-labelledby="sales-chart-title">
      <title id="sales-chart-title">過去30日間の日別売上（金額）。数値は右の表にあります。</title>
      {series.map((d, i) => {
        const h = Math.round((d.amount / max) * height);
        return (
          <g key={d.date}>
            <rect x={i * bar + 2} y={height - h} width={bar - 4} height={h} className="dashboard-bar" />
            {i % 5 === 4 ? (
              <text x={i * bar + bar / 2} y={height + 15} textAnchor="middle" fontSize="11">
                {shortDay(d.date)}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}

function SalesTable({ series }: { series: Figures['series'] }) {
  return (
    <div className="table-wrap dashboard-table">
      <table className="table">
        <caption>日別の売上（過去30日）</caption>
        <thead>
          <tr>
            <th scope="col">日付</th>
            <th scope="col">件数</th>
            <th scope="col">金額</th>
          </tr>
        </thead>
        <tbody>
          {[...series].reverse().map((d) => (
            <tr key={d.date}>
              <th scope="row">
                <Link to={`/admin/sales/summary?from=${d.date}&to=${d.date}`}>{shortDay(d.date)}</Link>
              </th>
              <td>{count(d.count)}</td>
              <td>{yen(d.amount)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** 管理メニュー's dashboard: each figure links to the list it counts (with the filter applied). */
export function DashboardFigures() {
  const { data, error, isLoading, mutate } = useDashboard();
  return (
    <section className="subsection" aria-labelledby="dashboard-heading">
      <h2 id="dashboard-heading">ダッシュボード</h2>
      {isLoading ? <Loading label="集計を読み込んでいます…" /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data ? (
        <>
          <div className="dashboard-grid">
            <PeriodFigures title={`今日（${shortDay(data.today.from)}）`} period={data.today} />
            <PeriodFigures title={`今月（${shortDay(data.month.from)}〜${shortDay(data.month.to)}）`} period={data.month} />
            <Waiting data={data} />
          </div>
          <h3>過去30日間の売上</h3>
          <div className="dashboard-series">
            <SalesChart series={data.series} />
            <SalesTable series={data.series} />
          </div>
        </>
      ) : null}
    </section>
  );
}
