import { PagedTable, pageOf } from '../../../components/ui/paged-table';
import { formatDateTime } from '../../../lib/japan-time';
import { useCan } from '../../../lib/permissions';
import type { ExportState, useExportHistory } from '../api';
import { count } from './sale-counts';

const STATE: Record<ExportState['state'], string> = { queued: '待機中', running: '作成中', done: '完了', failed: '失敗' };

/** What the 状態 column says: a failing job that is retried is not 作成中. */
const RETRYING = '作成に失敗しています（再試行中）';
const stateLabel = (row: ExportState) => (row.retrying ? RETRYING : STATE[row.state]);

function progress(row: ExportState) {
  if (row.state === 'done') return count(row.row_count);
  if (row.retrying) return row.total_rows ? count(row.total_rows) : '—';
  if (row.state === 'running' && row.total_rows) return `${row.row_count.toLocaleString('ja-JP')} / ${count(row.total_rows)}`;
  return row.total_rows ? count(row.total_rows) : '—';
}

function StateCell({ row }: { row: ExportState }) {
  return (
    <td>
      {row.retrying ? <strong className="field-message">{stateLabel(row)}</strong> : stateLabel(row)}
      {row.batch && row.completed_at ? `・登録済み（${formatDateTime(row.completed_at)}）` : ''}
      {row.state === 'failed' && row.error ? (
        <>
          <br />
          <span className="field-message">{row.error}</span>
        </>
      ) : null}
      {row.state === 'running' && row.worker_instance ? (
        <>
          <br />
          <span className="small" style={{ overflowWrap: 'anywhere' }}>
            処理中のワーカー：{row.worker_instance}
          </span>
        </>
      ) : null}
      {row.last_error && (row.retrying || row.state === 'failed') ? (
        <>
          <br />
          <span className="small" style={{ overflowWrap: 'anywhere' }}>
            {row.retrying ? '理由' : '最後の失敗の理由'}：{row.last_error}
            {row.last_error_at ? `（${formatDateTime(row.last_error_at)}）` : ''}
          </span>
        </>
      ) : null}
    </td>
  );
}

interface RowActions {
  busy: boolean;
  onRetry: (row: ExportState) => void;
  onComplete: (row: ExportState) => void;
}

function FileCell({ row, busy, onRetry, onComplete }: { row: ExportState } & RowActions) {
  const can = useCan();
  const open = row.batch && row.state === 'done' && !row.completed_at;
  return (
    <td>
      {!row.download_url ? (
        '—'
      ) : can('exports:download') ? (
        <a href={row.download_url} download={row.file_name}>
          {row.file_name}
        </a>
      ) : (
        row.file_name
      )}
      {row.sha256 ? (
        <>
          <br />
          <span className="small" title={row.sha256}>
            SHA-256: {row.sha256.slice(0, 12)}…
          </span>
        </>
      ) : null}
      {row.state === 'failed' && can('exports:run') ? (
        <>
          <br />
          <button type="button" className="button small" disabled={busy} onClick={() => onRetry(row)}>
            再実行
          </button>
        </>
      ) : null}
      {open && row.open_count !== 0 && can('exports:run') ? (
        <>
          <br />
          <button type="button" className="button small" disabled={busy} onClick={() => onComplete(row)}>
            登録済みにする
          </button>
        </>
      ) : null}
      {open && row.open_count === 0 ? (
        <>
          <br />
          <span className="small">「処理中」の売上は残っていません。</span>
        </>
      ) : null}
    </td>
  );
}

function ExportRow({ row, ...actions }: { row: ExportState } & RowActions) {
  return (
    <tr>
      <td>{formatDateTime(row.created_at)}</td>
      <td>{row.requested_by ?? '—'}</td>
      <td>
        {row.license_name ?? 'すべてのライセンス'}
        <br />
        <span className="small">
          {row.batch ? '一括処理' : '書き出しのみ'}・{row.encoding === 'shift_jis' ? 'Shift_JIS' : 'UTF-8'}
          {row.replace_unmappable ? '（〓置換）' : ''}
        </span>
      </td>
      <td>{progress(row)}</td>
      <StateCell row={row} />
      <FileCell row={row} {...actions} />
    </tr>
  );
}

/** 作成履歴: every export with its progress, its file again, 再実行 and 登録済みにする. */
export function ExportHistoryList({
  history,
  onPage,
  ...actions
}: { history: ReturnType<typeof useExportHistory>; onPage: (page: number) => void } & RowActions) {
  return (
    <PagedTable
      list={pageOf(history.data, (d) => d.exports)}
      isLoading={history.isLoading}
      error={history.error}
      onRetry={() => void history.mutate()}
      empty={<p>まだCSVは作成されていません。</p>}
      pagerLabel="作成履歴のページ送り"
      onPage={onPage}
    >
      {(rows) => (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">作成日時</th>
                <th scope="col">作成者</th>
                <th scope="col">内容</th>
                <th scope="col">件数</th>
                <th scope="col">状態</th>
                <th scope="col">ファイル</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <ExportRow key={row.id} row={row} {...actions} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </PagedTable>
  );
}
