import { type FormEvent, useEffect, useId, useState } from 'react';
import { useSearchParams } from 'react-router';
import { PagedTable, pageOf } from '../../../components/ui/paged-table';
import { usePageParam } from '../../../components/ui/pager';
import { ApiError } from '../../../lib/api';
import { withParams } from '../../../lib/search-params';
import { AUDIT_FILTERS, auditCsvUrl, auditQuery, useAuditLogOptions, useAuditLogs } from '../api/audit-logs';
import { type AuditFilters, AuditSearch } from '../components/audit-search';
import { AuditTable } from '../components/audit-table';
import '../audit.css';
import { CsvEncodingSelect } from '../../../components/ui/csv-encoding-select';
import { useCan } from '../../../lib/permissions';

const filtersOf = (params: URLSearchParams) =>
  Object.fromEntries(AUDIT_FILTERS.map((f) => [f, params.get(f) ?? ''])) as AuditFilters;

/** A select's options, keeping the value in the URL even when the log no longer offers it. */
function withCurrent(options: { value: string; label: string }[], current: string) {
  return current && !options.some((o) => o.value === current) ? [...options, { value: current, label: current }] : options;
}

/** /admin/audit: who changed what, to which record and when; the filters live in the URL. */
export function AuditLogPage() {
  const can = useCan();
  const [params, setParams] = useSearchParams();
  const [form, setForm] = useState(() => filtersOf(params));
  const query = params.toString();
  // Back and forward (or a link with filters) show their own filters in the form.
  useEffect(() => setForm(filtersOf(new URLSearchParams(query))), [query]);
  const { data, error, isLoading, mutate } = useAuditLogs(params);
  const options = useAuditLogOptions();
  const invalid = error instanceof ApiError && error.status === 422 ? error.errors : {};

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
      <AuditSearch
        form={form}
        onChange={setForm}
        invalid={invalid}
        actions={actions}
        targetTypes={targetTypes}
        onSubmit={search}
        onClear={clear}
      />
      <PagedTable
        list={pageOf(data, (d) => d.audit_logs)}
        isLoading={isLoading}
        error={error}
        onRetry={error instanceof ApiError && error.status === 422 ? undefined : () => void mutate()}
        empty={<p>{auditQuery(params) ? '条件に合う操作履歴はありません。' : '操作履歴はまだありません。'}</p>}
        summary={
          <p className="small" aria-live="polite">
            全{(data?.total ?? 0).toLocaleString('ja-JP')}件{data?.total_capped ? '以上' : ''}
          </p>
        }
        onPage={setPage}
        after={
          data && can('audit:export') ? <AuditCsv params={params} total={data.total} capped={Boolean(data.total_capped)} /> : null
        }
      >
        {(entries) => <AuditTable entries={entries} />}
      </PagedTable>
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
