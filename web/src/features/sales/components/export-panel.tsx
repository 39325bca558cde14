import { useState } from 'react';
import { Link } from 'react-router';
import { CheckboxField } from '../../../components/ui/checkbox-field';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { Pager } from '../../../components/ui/pager';
import { useConfirm } from '../../../components/ui/use-confirm';
import { api } from '../../../lib/api';
import { formatDateTime } from '../../../lib/japan-time';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { type ExportState, type Unmappable, useExportHistory } from '../api';
import { orderDetailPath } from '../order-api';

const STATE: Record<ExportState['state'], string> = { queued: '待機中', running: '作成中', done: '完了', failed: '失敗' };
const FIELD: Record<string, string> = {
  email: 'メールアドレス',
  last_name: '姓',
  first_name: '名',
  group: 'グループ',
  affiliation_name: '所属名',
  license_name: 'ライセンス名',
};
const count = (n: number) => `${n.toLocaleString('ja-JP')}件`;

/** What the 状態 column says: a failing job that is retried is not 作成中. */
const RETRYING = '作成に失敗しています（再試行中）';
const stateLabel = (row: ExportState) => (row.retrying ? RETRYING : STATE[row.state]);

function progress(row: ExportState) {
  if (row.state === 'done') return count(row.row_count);
  if (row.retrying) return row.total_rows ? count(row.total_rows) : '—';
  if (row.state === 'running' && row.total_rows) return `${row.row_count.toLocaleString('ja-JP')} / ${count(row.total_rows)}`;
  return row.total_rows ? count(row.total_rows) : '—';
}

/**
 * The training-system CSV: created from the list's search (a batch moves its 出力待ち sales to 処理中
 * at once), checked before Shift_JIS for characters CP932 cannot hold, and kept in a history that
 * offers every finished file again and completes batches. 一括処理 is off on every visit, and every
 * export is confirmed in a dialog saying which sales it writes and which move.
 */
export function ExportPanel({
  filters,
  awaiting,
  writes,
  onChanged,
}: {
  filters: Record<string, string>;
  /** The 出力待ち sales of the search that a batch would move to 処理中. */
  awaiting: number;
  /** The rows a plain export of the search would write (出力待ち and 処理中, no refund). */
  writes: number;
  onChanged: () => void;
}) {
  const [encoding, setEncoding] = useState<'utf-8' | 'shift_jis'>('utf-8');
  // Off on every visit: a "just let me look" export never moves sales unless asked to.
  const [batch, setBatch] = useState(false);
  const { confirm, dialog } = useConfirm();
  const [problems, setProblems] = useState<{ list: Unmappable[]; total: number } | null>(null);
  const [notice, setNotice] = useState('');
  const [page, setPage] = useState(1);
  const history = useExportHistory(page);
  const { busy, message, errors, run } = useFormSubmit();

  const create = async (options: { encoding: 'utf-8' | 'shift_jis'; replace?: boolean }) => {
    const file = `${options.encoding === 'shift_jis' ? 'Shift_JIS' : 'UTF-8'}${options.replace ? '（表せない文字は〓）' : ''}`;
    const yes = await confirm(
      batch
        ? {
            title: '一括処理でCSVを作成します',
            confirmLabel: `${count(awaiting)}を処理中にして作成する`,
            body: (
              <>
                <p>
                  検索結果の「出力待ち」の売上<strong>{count(awaiting)}</strong>を「処理中」にして、その
                  {count(awaiting)}を{file}のCSVに書き出します。
                </p>
                <p className="small">
                  「処理中」の売上は、研修管理システムへの登録が済んだら作成履歴の「登録済みにする」で「登録済み」にします。
                </p>
              </>
            ),
          }
        : {
            title: 'CSVを作成します（書き出しのみ）',
            confirmLabel: `${count(writes)}を書き出す`,
            body: (
              <>
                <p>
                  検索結果の「出力待ち」と「処理中」の売上<strong>{count(writes)}</strong>を{file}
                  のCSVに書き出します。売上の状態は変わりません。
                </p>
                <p className="small">「登録済み」・返金済み・返金手続き中の売上は書き出しません。</p>
              </>
            ),
          },
    );
    if (!yes) return;
    await run(async () => {
      try {
        await api('/api/exports', {
          method: 'POST',
          body: {
            ...filters,
            encoding: options.encoding,
            batch,
            replace_unmappable: options.replace ?? false,
            ...(batch ? { expected_count: awaiting } : {}),
          },
        });
        setProblems(null);
        setNotice(batch ? 'CSVの作成を始めました。対象の売上は「処理中」になりました。' : 'CSVの作成を始めました。');
        setPage(1);
      } finally {
        await history.mutate();
        onChanged();
      }
    });
  };

  /** Shift_JIS first asks which cells CP932 cannot hold, and lets the administrator choose. */
  const start = async () => {
    if (encoding === 'shift_jis') {
      const query = new URLSearchParams({ ...filters, batch: String(batch) });
      const found = await run(() => api<{ problems: Unmappable[]; total: number }>(`/api/exports/preflight?${query.toString()}`));
      if (!found) return;
      if (found.total > 0) {
        setProblems({ list: found.problems, total: found.total });
        return;
      }
    }
    setProblems(null);
    await create({ encoding });
  };

  const complete = async (row: ExportState) => {
    const open = row.open_count ?? row.total_rows ?? 0;
    const yes = await confirm({
      title: 'バッチを登録済みにします',
      confirmLabel: `${count(open)}を登録済みにする`,
      body: (
        <p>
          {formatDateTime(row.created_at)}に作成したバッチ（{row.license_name ?? 'すべてのライセンス'}）の「処理中」の売上
          <strong>{count(open)}</strong>を「登録済み」にします。
        </p>
      ),
    });
    if (!yes) return;
    await run(async () => {
      try {
        const res = await api<{ message: string }>(`/api/exports/${row.id}/complete`, { method: 'POST' });
        setNotice(res.message);
      } finally {
        await history.mutate();
        onChanged();
      }
    });
  };

  const retry = (row: ExportState) => {
    void run(async () => {
      try {
        const res = await api<{ message: string }>(`/api/exports/${row.id}/retry`, { method: 'POST' });
        setNotice(res.message);
      } finally {
        await history.mutate();
      }
    });
  };

  const rows = history.data?.exports ?? [];
  const running = rows.some((r) => r.state === 'queued' || r.state === 'running');
  // Exports are built by a worker process: while one waits and none answers, say so (not 待機中 for ever).
  const noWorker = running && history.data?.workers_alive === false;
  return (
    <section className="subsection" aria-labelledby="export-heading">
      <h2 id="export-heading">研修管理システム用CSV</h2>
      <p className="small">
        検索条件に合う「出力待ち」と「処理中」の売上を1件1行で書き出します（「登録済み」・返金済み・返金手続き中の売上は書き出しません）。
        「一括処理」では「出力待ち」の売上をまとめて「処理中」にして、その売上だけを書き出します。研修管理システムへの登録が済んだら「登録済みにする」で完了します。
      </p>
      <p className="export-plan" aria-live="polite">
        {batch
          ? `一括処理：「出力待ち」${count(awaiting)}を「処理中」にして書き出します。`
          : `書き出しのみ：「出力待ち」と「処理中」の${count(writes)}を書き出します。売上の状態は変わりません。`}
      </p>
      {history.data && history.data.group_name === null ? (
        <p className="alert" role="note">
          研修管理システムのグループ名がサーバーに設定されていません。CSVのグループ欄は「（グループ名未設定）」になります。設定はシステムの担当者に依頼してください。
        </p>
      ) : null}
      {notice ? <Notice>{notice}</Notice> : null}
      {noWorker ? (
        <div className="alert" role="alert">
          <p>処理担当（ワーカー）が動いていません。</p>
          <p className="small">
            CSVはワーカーが作成します。ワーカーが動き出すと作成が始まります。続くときはシステムの担当者に連絡してください。
          </p>
        </div>
      ) : null}
      <FormAlert message={message} errors={errors} />
      <div className="actions">
        <div className="field inline">
          <label htmlFor="encoding">文字コード</label>
          <select
            id="encoding"
            value={encoding}
            onChange={(e) => {
              setEncoding(e.currentTarget.value as 'utf-8' | 'shift_jis');
              setProblems(null);
            }}
          >
            <option value="utf-8">UTF-8（BOM付き）</option>
            <option value="shift_jis">Shift_JIS（古いExcel向け）</option>
          </select>
        </div>
        <CheckboxField
          label={`一括処理（出力待ち${count(awaiting)}を処理中にする）`}
          name="batch"
          checked={batch}
          onChange={setBatch}
        />
        <button
          type="button"
          className="button primary"
          onClick={() => void start()}
          disabled={busy || running || (batch && awaiting === 0)}
        >
          CSVを作成する
        </button>
      </div>

      {problems ? (
        <div className="alert" role="alert">
          <p>
            Shift_JIS（CP932）で表せない文字が{count(problems.total)}
            あります。UTF-8で作成するか、表せない文字を「〓」に置き換えて作成してください。
          </p>
          <ul>
            {problems.list.map((p) => (
              <li key={`${p.sale_id}-${p.field}`}>
                <Link to={orderDetailPath(p.sale_id)}>
                  {p.order_number ? `注文番号 ${p.order_number}` : `売上ID ${p.sale_id}`}
                </Link>{' '}
                の{FIELD[p.field] ?? p.field}「{p.text}」：{p.characters.join(' ')}
              </li>
            ))}
          </ul>
          <div className="actions">
            <button type="button" className="button primary" disabled={busy} onClick={() => void create({ encoding: 'utf-8' })}>
              UTF-8で作成する
            </button>
            <button
              type="button"
              className="button"
              disabled={busy}
              onClick={() => void create({ encoding: 'shift_jis', replace: true })}
            >
              〓に置き換えてShift_JISで作成する
            </button>
          </div>
        </div>
      ) : null}

      {dialog}

      <h3>作成履歴</h3>
      {history.isLoading ? <Loading /> : null}
      {history.error ? <LoadError error={history.error} onRetry={() => void history.mutate()} /> : null}
      {history.data && rows.length === 0 ? <p>まだCSVは作成されていません。</p> : null}
      {rows.length > 0 ? (
        <>
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
                  <tr key={row.id}>
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
                    <td>
                      {row.retrying ? <strong className="field-message">{stateLabel(row)}</strong> : stateLabel(row)}
                      {row.batch && row.completed_at ? `・登録済み（${formatDateTime(row.completed_at)}）` : ''}
                      {row.state === 'failed' && row.error ? (
                        <>
                          <br />
                          <span className="field-message">{row.error}</span>
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
                    <td>
                      {row.download_url ? (
                        <a href={row.download_url} download={row.file_name}>
                          {row.file_name}
                        </a>
                      ) : (
                        '—'
                      )}
                      {row.sha256 ? (
                        <>
                          <br />
                          <span className="small" title={row.sha256}>
                            SHA-256: {row.sha256.slice(0, 12)}…
                          </span>
                        </>
                      ) : null}
                      {row.state === 'failed' ? (
                        <>
                          <br />
                          <button type="button" className="button small" disabled={busy} onClick={() => retry(row)}>
                            再実行
                          </button>
                        </>
                      ) : null}
                      {row.batch && row.state === 'done' && !row.completed_at && row.open_count !== 0 ? (
                        <>
                          <br />
                          <button type="button" className="button small" disabled={busy} onClick={() => void complete(row)}>
                            登録済みにする
                          </button>
                        </>
                      ) : null}
                      {row.batch && row.state === 'done' && !row.completed_at && row.open_count === 0 ? (
                        <>
                          <br />
                          <span className="small">「処理中」の売上は残っていません。</span>
                        </>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {history.data ? (
            <Pager
              page={history.data.page}
              perPage={history.data.per_page}
              total={history.data.total}
              onPage={setPage}
              label="作成履歴のページ送り"
            />
          ) : null}
        </>
      ) : null}
    </section>
  );
}
