import { type FormEvent, useEffect, useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { FormAlert } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { SelectField } from '../../../components/ui/select-field';
import { TextInput } from '../../../components/ui/text-input';
import { ApiError } from '../../../lib/api';
import { japanToday } from '../../../lib/japan-time';
import { type SalesSummary, summaryCsvUrl, useSalesSummary } from '../summary-api';
import '../summary.css';
import { CsvEncodingSelect } from '../../../components/ui/csv-encoding-select';

interface Period {
  from: string;
  to: string;
}

/** YYYY-MM of today in Japan, `back` months ago. */
function monthOf(back: number, now = new Date()): string {
  const [year, month] = japanToday(now).split('-').map(Number) as [number, number];
  const first = new Date(Date.UTC(year, month - 1 - back, 1));
  return first.toISOString().slice(0, 7);
}
/** The whole calendar month YYYY-MM. */
function monthPeriod(month: string): Period {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return { from: `${month}-01`, to: new Date(Date.UTC(year, m, 0)).toISOString().slice(0, 10) };
}
/** The month the period covers exactly, if it is one. */
function wholeMonth(period: Period): string | null {
  const month = period.from.slice(0, 7);
  const whole = monthPeriod(month);
  return whole.from === period.from && whole.to === period.to ? month : null;
}
const monthLabel = (month: string) => `${Number(month.slice(0, 4))}年${Number(month.slice(5, 7))}月`;
const dayLabel = (date: string) => `${Number(date.slice(0, 4))}年${Number(date.slice(5, 7))}月${Number(date.slice(8, 10))}日`;
const periodLabel = (period: Period) => {
  const month = wholeMonth(period);
  return month ? monthLabel(month) : `${dayLabel(period.from)}〜${dayLabel(period.to)}`;
};

const count = (n: number) => `${n.toLocaleString('ja-JP')}件`;
const yen = (n: number) => `${n < 0 ? '−' : ''}¥${Math.abs(n).toLocaleString('ja-JP')}`;

/** The period in the URL; without one, this month in Japan (as the API's default). */
function periodFrom(params: URLSearchParams): Period {
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  if (!from && !to) return monthPeriod(monthOf(0));
  return { from, to };
}

/** /admin/sales/summary: 売上集計 of a month or any period, per licence, with its CSV. */
export function SalesSummaryPage() {
  const [params, setParams] = useSearchParams();
  const period = periodFrom(params);
  const [form, setForm] = useState<Period>(period);
  const [encoding, setEncoding] = useState<'utf-8' | 'shift_jis'>('utf-8');
  const encodingId = useId();
  // Back and forward (or a preset) show their own period in the form.
  useEffect(() => setForm({ from: period.from, to: period.to }), [period.from, period.to]);
  const { data, error, isLoading, mutate } = useSalesSummary(period);
  const invalid = error instanceof ApiError && error.status === 422 ? error.errors : {};

  const show = (next: Period) => setParams(new URLSearchParams({ from: next.from, to: next.to }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    show(form);
  };
  const thisMonth = monthOf(0);
  const lastMonth = monthOf(1);
  const shownMonth = wholeMonth(period);
  const months = Array.from({ length: 12 }, (_, back) => monthOf(back));

  return (
    <section className="card">
      <h1>売上集計</h1>
      <p className="small">
        期間内にお支払いが完了した売上と、期間内に返金した売上をライセンスごとに集計します。日付は日本時間です。
      </p>
      <div className="summary-presets">
        <div className="actions summary-preset-buttons">
          <button
            type="button"
            className="button"
            aria-pressed={shownMonth === thisMonth}
            onClick={() => show(monthPeriod(thisMonth))}
          >
            今月
          </button>
          <button
            type="button"
            className="button"
            aria-pressed={shownMonth === lastMonth}
            onClick={() => show(monthPeriod(lastMonth))}
          >
            先月
          </button>
        </div>
        <SelectField
          label="月を選ぶ（過去12か月）"
          name="month"
          value={shownMonth && months.includes(shownMonth) ? shownMonth : ''}
          placeholder="選択してください"
          options={months.map((month) => ({ value: month, label: monthLabel(month) }))}
          onChange={(month) => {
            if (month) show(monthPeriod(month));
          }}
        />
      </div>
      <search aria-label="集計期間の指定">
        <form className="search" onSubmit={submit} noValidate>
          <TextInput
            label="期間（から）"
            name="from"
            type="date"
            value={form.from}
            message={invalid.from}
            onInput={(from) => setForm((current) => ({ ...current, from }))}
          />
          <TextInput
            label="期間（まで）"
            name="to"
            type="date"
            value={form.to}
            message={invalid.to}
            onInput={(to) => setForm((current) => ({ ...current, to }))}
          />
          <div className="search-actions">
            <button type="submit" className="button primary">
              集計する
            </button>
          </div>
        </form>
      </search>

      {isLoading ? <Loading label="集計しています…" /> : null}
      {error instanceof ApiError && error.status === 422 ? (
        <FormAlert message="集計期間を確認してください。" errors={invalid} fields={['from', 'to']} />
      ) : error ? (
        <LoadError error={error} onRetry={() => void mutate()} />
      ) : null}
      {data ? <SummaryReport summary={data.summary} /> : null}

      {data ? (
        <section className="subsection" aria-labelledby="summary-csv-heading">
          <h2 id="summary-csv-heading">CSVのダウンロード</h2>
          <p className="small">
            上の集計（ライセンスごとの行と合計の行）をCSVファイルにします。ダウンロードは操作履歴に記録されます。
          </p>
          <div className="summary-csv">
            <CsvEncodingSelect id={encodingId} value={encoding} onChange={setEncoding} />
            <a className="button primary" href={summaryCsvUrl(data.summary, encoding)} download>
              CSVをダウンロード（{periodLabel(data.summary)}）
            </a>
          </div>
        </section>
      ) : null}
    </section>
  );
}

function SummaryReport({ summary }: { summary: SalesSummary }) {
  const empty = summary.count === 0 && summary.refunded_count === 0;
  return (
    <section className="subsection" aria-labelledby="summary-heading">
      <h2 id="summary-heading">{periodLabel(summary)}の集計</h2>
      {summary.count === 0 ? <p>この期間の売上はありません。</p> : null}
      {empty ? null : (
        <>
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
        </>
      )}
    </section>
  );
}
