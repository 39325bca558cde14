import { useState } from 'react';
import { CheckboxField } from '../../../components/ui/checkbox-field';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { NoWorkerAlert } from '../../../components/ui/no-worker-alert';
import { useCan } from '../../../lib/permissions';
import { type Encoding, useExportActions } from '../hooks/use-export-actions';
import { ExportHistoryList } from './export-history';
import { count } from './sale-counts';
import { UnmappableAlert } from './unmappable-alert';

/** 文字コード, 一括処理 and 「CSVを作成する」. */
function ExportControls({
  encoding,
  onEncoding,
  batch,
  onBatch,
  awaiting,
  disabled,
  onStart,
}: {
  encoding: Encoding;
  onEncoding: (encoding: Encoding) => void;
  batch: boolean;
  onBatch: (batch: boolean) => void;
  awaiting: number;
  disabled: boolean;
  onStart: () => void;
}) {
  return (
    <div className="actions">
      <div className="field inline">
        <label htmlFor="encoding">文字コード</label>
        <select id="encoding" value={encoding} onChange={(e) => onEncoding(e.currentTarget.value as Encoding)}>
          <option value="utf-8">UTF-8（BOM付き）</option>
          <option value="shift_jis">Shift_JIS（古いExcel向け）</option>
        </select>
      </div>
      <CheckboxField
        label={`一括処理（出力待ち${count(awaiting)}を処理中にする）`}
        name="batch"
        checked={batch}
        onChange={onBatch}
      />
      <button type="button" className="button primary" onClick={onStart} disabled={disabled}>
        CSVを作成する
      </button>
    </div>
  );
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
  const can = useCan();
  const [encoding, setEncoding] = useState<Encoding>('utf-8');
  // Off on every visit: a "just let me look" export never moves sales unless asked to.
  const [batch, setBatch] = useState(false);
  const actions = useExportActions({ filters, awaiting, writes, batch, onChanged });
  const { history, busy } = actions;
  const running = (history.data?.exports ?? []).some((r) => r.state === 'queued' || r.state === 'running');
  if (!can('exports:run')) return can('exports:read') ? <ExportHistoryOnly history={history} onPage={actions.setPage} /> : null;
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
      {actions.notice ? <Notice>{actions.notice}</Notice> : null}
      {/* Exports are built by a worker process: while one waits and none answers, say so (not 待機中 for ever). */}
      {running && history.data?.workers_alive === false ? <NoWorkerAlert waiting="CSVはワーカーが作成します。" /> : null}
      <FormAlert message={actions.message} errors={actions.errors} />
      <ExportControls
        encoding={encoding}
        onEncoding={(next) => {
          setEncoding(next);
          actions.setProblems(null);
        }}
        batch={batch}
        onBatch={setBatch}
        awaiting={awaiting}
        disabled={busy || running || (batch && awaiting === 0)}
        onStart={() => void actions.start(encoding)}
      />
      {actions.problems ? (
        <UnmappableAlert
          problems={actions.problems}
          busy={busy}
          onUtf8={() => void actions.create({ encoding: 'utf-8' })}
          onReplace={() => void actions.create({ encoding: 'shift_jis', replace: true })}
        />
      ) : null}
      {actions.dialog}
      <h3>作成履歴</h3>
      <ExportHistoryList
        history={history}
        onPage={actions.setPage}
        busy={busy}
        onRetry={actions.retry}
        onComplete={(row) => void actions.complete(row)}
      />
    </section>
  );
}

/** A role that may read the exports but not make them (閲覧のみ): the history alone, no file, no action. */
function ExportHistoryOnly({
  history,
  onPage,
}: {
  history: ReturnType<typeof useExportActions>['history'];
  onPage: (page: number) => void;
}) {
  const none = () => undefined;
  return (
    <section className="subsection" aria-labelledby="export-heading">
      <h2 id="export-heading">研修管理システム用CSV</h2>
      <p className="small">これまでに作成されたCSVです。CSVの作成とダウンロードは、運用担当と管理者が行います。</p>
      <h3>作成履歴</h3>
      <ExportHistoryList history={history} onPage={onPage} busy={false} onRetry={none} onComplete={none} />
    </section>
  );
}
