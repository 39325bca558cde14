import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { PagedTable, pageOf } from '../../../components/ui/paged-table';
import { usePageParam } from '../../../components/ui/pager';
import { ApiError } from '../../../lib/api';
import { withParams } from '../../../lib/search-params';
import {
  type AdminSale,
  refreshExportHistory,
  type SaleCounts,
  SaleStatus,
  type SaleStatusLabels,
  useLicenseOptions,
  useSaleCounts,
  useSalesSearch,
} from '../api';
import { ExportPanel } from '../components/export-panel';
import { IssueSalesTable } from '../components/issue-sales-table';
import { RevertForm } from '../components/revert-form';
import { count, SaleCountList } from '../components/sale-counts';
import { SALE_FILTERS, type SaleFilters, SaleSearchForm } from '../components/sale-search-form';
import { StatusToolbar } from '../components/status-toolbar';
import { useSaleMoves, useSaleSelection } from '../hooks/use-sale-moves';

/** The rows a plain export of the search writes: 出力待ち and 処理中 (of the status filter), no refund. */
function exportRows(status: string | null, counts: SaleCounts | undefined): number {
  if (!counts) return 0;
  if (!status) return counts.export_awaiting + counts.export_in_progress;
  if (status === String(SaleStatus.AwaitingExport)) return counts.export_awaiting;
  if (status === String(SaleStatus.InProgress)) return counts.export_in_progress;
  return 0;
}

/** A search the API refused (e.g. 購入日 from > to): its messages, also shown at the fields. */
function QueryErrors({ errors }: { errors: Record<string, string> }) {
  return (
    <div className="alert" role="alert">
      <p>検索条件を確認してください。</p>
      <ul>
        {Object.entries(errors).map(([field, text]) => (
          <li key={field}>{text}</li>
        ))}
      </ul>
    </div>
  );
}

function AuditView() {
  return (
    <div className="notice">
      <p>
        操作履歴の操作で状態が変わった売上だけを、現在の状態で表示しています。
        <Link to="/admin/licenses/issue">すべての売上を表示する</Link>
      </p>
    </div>
  );
}

/** The sales of the search: the name-search notes, then the paged table. */
function SalesResults({
  search: { data, error, isLoading, mutate },
  queryErrors,
  selection,
  onRevert,
  onPage,
}: {
  search: Pick<ReturnType<typeof useSalesSearch>, 'data' | 'error' | 'isLoading' | 'mutate'>;
  queryErrors: Record<string, string> | null;
  selection: ReturnType<typeof useSaleSelection>;
  onRevert: (sale: AdminSale) => void;
  onPage: (page: number) => void;
}) {
  return (
    <>
      <p className="small" id="sales-search-help">
        氏名は会員の現在の氏名・フリガナで探します（1文字からどこでも一致。退会・削除された会員は購入時の氏名）。メールアドレスは一部でも、注文番号は全体で探します。
      </p>
      {data?.members_capped ? (
        <p className="alert" role="note">
          氏名・メールアドレスに合う会員が1,000人を超えたため、そのうち1,000人の売上だけを表示しています。もう少し長く入力して絞り込んでください。
        </p>
      ) : null}
      <PagedTable
        list={pageOf(data, (d) => d.sales)}
        isLoading={isLoading}
        error={error}
        onRetry={() => void mutate()}
        errorView={queryErrors ? <QueryErrors errors={queryErrors} /> : undefined}
        empty={<p>条件に合う売上はありません。</p>}
        summary={
          <p className="small">
            全{count(data?.total ?? 0)}
            {data?.total_capped ? '以上' : ''}
            {selection.selected.size ? `（${count(selection.selected.size)}を選択中）` : ''}
          </p>
        }
        pagerLabel="販売一覧のページ送り"
        onPage={onPage}
      >
        {(sales) => (
          <IssueSalesTable sales={sales} selected={selection.selected} onToggle={selection.toggle} onRevert={onRevert} />
        )}
      </PagedTable>
    </>
  );
}

/** The move buttons and, once asked for, the 差し戻し form. */
function SaleMoveActions({
  statuses,
  licenseChosen,
  selection,
  moves,
}: {
  statuses: SaleStatusLabels | undefined;
  licenseChosen: boolean;
  selection: ReturnType<typeof useSaleSelection>;
  moves: ReturnType<typeof useSaleMoves>;
}) {
  return (
    <>
      <StatusToolbar
        statuses={statuses}
        licenseChosen={licenseChosen}
        busy={moves.busy}
        selectedCount={(status) => selection.chosen(status).length}
        matching={moves.matching}
        revertable={selection.revertable.length}
        onMove={(to, scope) => void moves.advance(to, scope)}
        onRevert={() => moves.setReverting(selection.revertable)}
      />
      {moves.reverting ? (
        <RevertForm
          sales={moves.reverting}
          reason={moves.reason}
          onReason={moves.setReason}
          message={moves.errors.reason}
          busy={moves.busy}
          onSubmit={moves.revert}
          onCancel={() => moves.setReverting(null)}
        />
      ) : null}
    </>
  );
}

/** /admin/licenses/issue: sales of a licence, their status (出力待ち → 処理中 → 登録済み), 差し戻し and the CSV. */
export function IssuePage() {
  const [params, setParams] = useSearchParams();
  const { setPage } = usePageParam();
  const [form, setForm] = useState(() => Object.fromEntries(SALE_FILTERS.map((f) => [f, params.get(f) ?? ''])) as SaleFilters);
  const licenses = useLicenseOptions();
  const { data, error, isLoading, mutate } = useSalesSearch(params);
  const counts = useSaleCounts(params);
  const licenseId = params.get('license_id');
  // 操作履歴's link: only the sales one status move moved (the search form leaves this view).
  const auditId = params.get('audit_id');
  const filterStatus = params.get('status');
  const filters = Object.fromEntries(SALE_FILTERS.map((f) => [f, params.get(f) ?? '']).filter(([, v]) => v !== ''));
  // A search the API refuses: its messages are shown at the fields, not as a failed load.
  const queryErrors = error instanceof ApiError && error.status === 422 ? error.errors : null;
  const refresh = async () => {
    await Promise.all([mutate(), counts.mutate(), refreshExportHistory()]);
  };
  const selection = useSaleSelection();
  const moves = useSaleMoves({
    params,
    counts: counts.data?.counts,
    statuses: counts.data?.statuses,
    licenseName: licenses.data?.licenses.find((l) => String(l.id) === licenseId)?.name,
    selection,
    refresh,
  });
  const search = (event: FormEvent) => {
    event.preventDefault();
    selection.clear();
    setParams(withParams(new URLSearchParams(), { ...form, page: '' }));
  };
  const c = counts.data?.counts;
  return (
    <section className="card">
      <h1>ライセンス発行</h1>
      <p className="small">
        購入されたライセンスの状態（出力待ち → 処理中 → 登録済み）を進め、研修管理システム用のCSVを作成します。
      </p>
      {moves.notice ? <Notice>{moves.notice}</Notice> : null}
      {auditId ? <AuditView /> : null}
      <FormAlert message={moves.message} errors={moves.errors} fields={['reason']} />
      <SaleSearchForm
        form={form}
        onChange={setForm}
        licenses={licenses.data?.licenses ?? []}
        statuses={counts.data?.statuses}
        queryErrors={queryErrors}
        onSubmit={search}
      />
      {c && counts.data ? <SaleCountList counts={c} statuses={counts.data.statuses} /> : null}
      <SaleMoveActions statuses={counts.data?.statuses} licenseChosen={Boolean(licenseId)} selection={selection} moves={moves} />
      <SalesResults
        search={{ data, error, isLoading, mutate }}
        queryErrors={queryErrors}
        selection={selection}
        onRevert={(sale) => moves.setReverting([sale])}
        onPage={setPage}
      />
      {auditId || queryErrors ? null : (
        <ExportPanel
          filters={filters}
          awaiting={filterStatus && filterStatus !== '0' ? 0 : (c?.awaiting ?? 0)}
          writes={exportRows(filterStatus, c)}
          onChanged={() => void refresh()}
        />
      )}
      {moves.dialog}
      <LoadingOverlay show={moves.busy} label="処理しています" />
    </section>
  );
}
