import { type FormEvent, useEffect, useId, useState } from 'react';
import { useSearchParams } from 'react-router';
import { CsvEncodingSelect } from '../../../components/ui/csv-encoding-select';
import { FormAlert } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { SelectField } from '../../../components/ui/select-field';
import { TextInput } from '../../../components/ui/text-input';
import { ApiError, type FieldErrors } from '../../../lib/api';
import { japanMonth } from '../../../lib/japan-time';
import { useCan } from '../../../lib/permissions';
import { SummaryReport } from '../components/summary-report';
import { ordersCsvUrl, type SalesSummary, summaryCsvUrl, useSalesSummary } from '../summary-api';
import { monthLabel, monthPeriod, type Period, periodFrom, periodLabel, wholeMonth } from '../summary-period';
import '../summary.css';

/** 今月, 先月 and any of the past 12 months, pressed when it is the period shown. */
function SummaryPresets({ shown, onShow }: { shown: Period; onShow: (period: Period) => void }) {
  const thisMonth = japanMonth(0);
  const lastMonth = japanMonth(1);
  const shownMonth = wholeMonth(shown);
  const months = Array.from({ length: 12 }, (_, back) => japanMonth(back));
  return (
    <div className="summary-presets">
      <div className="actions summary-preset-buttons">
        <button
          type="button"
          className="button"
          aria-pressed={shownMonth === thisMonth}
          onClick={() => onShow(monthPeriod(thisMonth))}
        >
          今月
        </button>
        <button
          type="button"
          className="button"
          aria-pressed={shownMonth === lastMonth}
          onClick={() => onShow(monthPeriod(lastMonth))}
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
          if (month) onShow(monthPeriod(month));
        }}
      />
    </div>
  );
}

/** Any period, from and to. */
function PeriodForm({
  form,
  onChange,
  invalid,
  onSubmit,
}: {
  form: Period;
  onChange: (update: (current: Period) => Period) => void;
  invalid: FieldErrors;
  onSubmit: (event: FormEvent) => void;
}) {
  return (
    <search aria-label="集計期間の指定">
      <form className="search" onSubmit={onSubmit} noValidate>
        <TextInput
          label="期間（から）"
          name="from"
          type="date"
          value={form.from}
          message={invalid.from}
          onInput={(from) => onChange((current) => ({ ...current, from }))}
        />
        <TextInput
          label="期間（まで）"
          name="to"
          type="date"
          value={form.to}
          message={invalid.to}
          onInput={(to) => onChange((current) => ({ ...current, to }))}
        />
        <div className="search-actions">
          <button type="submit" className="button primary">
            集計する
          </button>
        </div>
      </form>
    </search>
  );
}

/** The report as a CSV file, in the chosen encoding. */
function SummaryCsv({ summary }: { summary: SalesSummary }) {
  const [encoding, setEncoding] = useState<'utf-8' | 'shift_jis'>('utf-8');
  const encodingId = useId();
  // 受注CSV names members: a personal-data export (exports:download), not for 閲覧のみ.
  const orders = useCan()('exports:download');
  return (
    <section className="subsection" aria-labelledby="summary-csv-heading">
      <h2 id="summary-csv-heading">CSVのダウンロード</h2>
      <p className="small">
        上の集計（ライセンスごとの行と合計の行）をCSVファイルにします。ダウンロードは操作履歴に記録されます。
      </p>
      <div className="summary-csv">
        <CsvEncodingSelect id={encodingId} value={encoding} onChange={setEncoding} />
        <a className="button primary" href={summaryCsvUrl(summary, encoding)} download>
          CSVをダウンロード（{periodLabel(summary)}）
        </a>
      </div>
      {orders ? (
        <>
          <h3>受注CSV</h3>
          <p className="small">
            期間内に支払われた注文を1件1行で出力します（注文番号、会員、金額と消費税、お支払い方法、返金）。それより前の注文を期間内に返金したときは、計上区分「返金のみ」（金額0円）の行でその返金額を出力します。金額・消費税・返金額の合計は上の集計と一致します。
          </p>
          <a className="button" href={ordersCsvUrl(summary, encoding)} download>
            受注CSVをダウンロード（{periodLabel(summary)}）
          </a>
        </>
      ) : null}
    </section>
  );
}

/** /admin/sales/summary: 売上集計 of a month or any period, per licence, with its CSV. */
export function SalesSummaryPage() {
  const [params, setParams] = useSearchParams();
  const period = periodFrom(params);
  const [form, setForm] = useState<Period>(period);
  // Back and forward (or a preset) show their own period in the form.
  useEffect(() => setForm({ from: period.from, to: period.to }), [period.from, period.to]);
  const { data, error, isLoading, mutate } = useSalesSummary(period);
  const invalid = error instanceof ApiError && error.status === 422 ? error.errors : {};

  const show = (next: Period) => setParams(new URLSearchParams({ from: next.from, to: next.to }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    show(form);
  };

  return (
    <section className="card">
      <h1>売上集計</h1>
      <p className="small">
        期間内にお支払いが完了した売上と、期間内に返金した売上をライセンスごとに集計します。日付は日本時間です。
      </p>
      <SummaryPresets shown={period} onShow={show} />
      <PeriodForm form={form} onChange={setForm} invalid={invalid} onSubmit={submit} />

      {isLoading ? <Loading label="集計しています…" /> : null}
      {error instanceof ApiError && error.status === 422 ? (
        <FormAlert message="集計期間を確認してください。" errors={invalid} fields={['from', 'to']} />
      ) : error ? (
        <LoadError error={error} onRetry={() => void mutate()} />
      ) : null}
      {data ? <SummaryReport summary={data.summary} /> : null}

      {data ? <SummaryCsv summary={data.summary} /> : null}
    </section>
  );
}
