import { type FormEvent, useEffect, useId, useState } from 'react';
import { useSearchParams } from 'react-router';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { Pager, usePageParam } from '../../../components/ui/pager';
import { SelectField } from '../../../components/ui/select-field';
import { TextInput } from '../../../components/ui/text-input';
import { ApiError } from '../../../lib/api';
import { withParams } from '../../../lib/search-params';
import { AUDIT_FILTERS, type AuditFilter, auditCsvUrl, auditQuery, useAuditLogOptions, useAuditLogs } from '../api/audit-logs';
import { AuditTable } from '../components/audit-table';
import '../audit.css';
import { CsvEncodingSelect } from '../../../components/ui/csv-encoding-select';

type Filters = Record<AuditFilter, string>;
const filtersOf = (params: URLSearchParams) => Object.fromEntries(AUDIT_FILTERS.map((f) => [f, params.get(f) ?? ''])) as Filters;

/** A select's options, keeping the value in the URL even when the log no longer offers it. */
function withCurrent(options: { value: string; label: string }[], current: string) {
  return current && !options.some((o) => o.value === current) ? [...options, { value: current, label: current }] : options;
}

/** /admin/audit: who changed what, to which record and when; the filters live in the URL. */
export function AuditLogPage() {
  const [params, setParams] = useSearchParams();
  const [form, setForm] = useState(() => filtersOf(params));
  const query = params.toString();
  // Back and forward (or a link with filters) show their own filters in the form.
  useEffect(() => setForm(filtersOf(new URLSearchParams(query))), [query]);
  const { data, error, isLoading, mutate } = useAuditLogs(params);
  const options = useAuditLogOptions();
  const invalid = error instanceof ApiError && error.status === 422 ? error.errors : {};

  const set = (field: AuditFilter) => (value: string) => setForm((current) => ({ ...current, [field]: value }));
  const search = (event: FormEvent) => {
    event.preventDefault();
    setParams(withParams(new URLSearchParams(), { ...form, page: '' }));
  };
  const clear = () => setParams(new URLSearchParams());
  const { setPage } = usePageParam();
  const actions = withCurrent(
    (options.data?.actions ?? []).map((a) => ({ value: a.action, label: a.label })),
    form.action,
  );
  const targetTypes = withCurrent(
    (options.data?.target_types ?? []).map((t) => ({ value: t.target_type, label: t.label })),
    form.target_type,
  );

  return (
    <section className="card">
      <h1>操作履歴</h1>
      <p className="small">管理者がいつ、どの記録を、どう変更したかを新しい順に表示します。日時は日本時間です。</p>
      <search aria-label="操作履歴の検索">
        <form className="search" onSubmit={search} noValidate>
          <TextInput
            label="操作者（メールアドレスの一部）"
            name="actor"
            value={form.actor}
            message={invalid.actor}
            onInput={set('actor')}
          />
          <SelectField
            label="操作"
            name="action"
            value={form.action}
            options={actions}
            placeholder="すべて"
            message={invalid.action}
            onChange={set('action')}
          />
          <SelectField
            label="対象の種類"
            name="target_type"
            value={form.target_type}
            options={targetTypes}
            placeholder="すべて"
            message={invalid.target_type}
            onChange={set('target_type')}
          />
          <TextInput
            label="対象のID"
            name="target_id"
            value={form.target_id}
            message={invalid.target_id}
            onInput={set('target_id')}
          />
          <TextInput
            label="期間（から）"
            name="from"
            type="date"
            value={form.from}
            message={invalid.from}
            onInput={set('from')}
          />
          <TextInput label="期間（まで）" name="to" type="date" value={form.to} message={invalid.to} onInput={set('to')} />
          <div className="search-actions audit-search-actions">
            <button type="submit" className="button primary">
              検索する
            </button>
            <button type="button" className="button secondary" onClick={clear}>
              条件をクリア
            </button>
          </div>
        </form>
      </search>
      {isLoading ? <Loading /> : null}
      {error ? (
        <LoadError error={error} onRetry={error instanceof ApiError && error.status === 422 ? undefined : () => void mutate()} />
      ) : null}
      {data && data.audit_logs.length === 0 ? (
        <p>{auditQuery(params) ? '条件に合う操作履歴はありません。' : '操作履歴はまだありません。'}</p>
      ) : null}
      {data && data.audit_logs.length > 0 ? (
        <>
          <p className="small" aria-live="polite">
            全{data.total.toLocaleString('ja-JP')}件{data.total_capped ? '以上' : ''}
          </p>
          <AuditTable entries={data.audit_logs} />
          <Pager page={data.page} perPage={data.per_page} total={data.total} onPage={setPage} />
          <AuditCsv params={params} total={data.total} capped={Boolean(data.total_capped)} />
        </>
      ) : null}
    </section>
  );
}

/** The download of every entry the current filters find (not only this page); the download is itself recorded. */
function AuditCsv({ params, total, capped }: { params: URLSearchParams; total: number; capped: boolean }) {
  const [encoding, setEncoding] = useState<'utf-8' | 'shift_jis'>('utf-8');
  const encodingId = useId();
  const count = `${total.toLocaleString('ja-JP')}件${capped ? '以上' : ''}`;
  return (
    <section className="subsection" aria-labelledby="audit-csv-heading">
      <h2 id="audit-csv-heading">CSVのダウンロード</h2>
      <p className="small">
        いまの検索条件に合う操作履歴（{count}、すべてのページ）をCSVファイルにします。ダウンロードも操作履歴に記録されます。
      </p>
      <div className="audit-csv">
        <CsvEncodingSelect id={encodingId} value={encoding} onChange={setEncoding} />
        <a className="button primary" href={auditCsvUrl(params, encoding)} download>
          CSVをダウンロード（{count}）
        </a>
      </div>
    </section>
  );
}
