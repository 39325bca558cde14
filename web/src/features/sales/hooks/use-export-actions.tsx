import { useState } from 'react';
import { type ConfirmRequest, useConfirm } from '../../../components/ui/use-confirm';
import { formatDateTime } from '../../../lib/japan-time';
import { useFormSubmit } from '../../../lib/use-form-submit';
import {
  completeExport,
  type ExportState,
  exportPreflight,
  requestExport,
  retryExport,
  type Unmappable,
  useExportHistory,
} from '../api';
import { count } from '../components/sale-counts';

export type Encoding = ExportState['encoding'];

/** The confirmation of an export: which sales it writes and, for a batch, which it moves. */
function createConfirmation(batch: boolean, awaiting: number, writes: number, file: string): ConfirmRequest {
  if (batch)
    return {
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
    };
  return {
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
  };
}

function completeConfirmation(row: ExportState, open: number): ConfirmRequest {
  return {
    title: 'バッチを登録済みにします',
    confirmLabel: `${count(open)}を登録済みにする`,
    body: (
      <p>
        {formatDateTime(row.created_at)}に作成したバッチ（{row.license_name ?? 'すべてのライセンス'}）の「処理中」の売上
        <strong>{count(open)}</strong>を「登録済み」にします。
      </p>
    ),
  };
}

/**
 * The export panel's actions: create (Shift_JIS first asks which cells CP932 cannot hold), complete a
 * batch and retry a failed export — each confirmed where it moves sales, each refreshing the history.
 */
export function useExportActions({
  filters,
  awaiting,
  writes,
  batch,
  onChanged,
}: {
  filters: Record<string, string>;
  awaiting: number;
  writes: number;
  batch: boolean;
  onChanged: () => void;
}) {
  const { confirm, dialog } = useConfirm();
  const [problems, setProblems] = useState<{ list: Unmappable[]; total: number } | null>(null);
  const [notice, setNotice] = useState('');
  const [page, setPage] = useState(1);
  const history = useExportHistory(page);
  const submit = useFormSubmit();
  const { run } = submit;
  const after = async (changed: boolean) => {
    await history.mutate();
    if (changed) onChanged();
  };

  const create = async (options: { encoding: Encoding; replace?: boolean }) => {
    const file = `${options.encoding === 'shift_jis' ? 'Shift_JIS' : 'UTF-8'}${options.replace ? '（表せない文字は〓）' : ''}`;
    if (!(await confirm(createConfirmation(batch, awaiting, writes, file)))) return;
    const body = {
      ...filters,
      encoding: options.encoding,
      batch,
      replace_unmappable: options.replace ?? false,
      ...(batch ? { expected_count: awaiting } : {}),
    };
    await run(async () => {
      try {
        await requestExport(body);
        setProblems(null);
        setNotice(batch ? 'CSVの作成を始めました。対象の売上は「処理中」になりました。' : 'CSVの作成を始めました。');
        setPage(1);
      } finally {
        await after(true);
      }
    });
  };

  const start = async (encoding: Encoding) => {
    if (encoding === 'shift_jis') {
      const query = new URLSearchParams({ ...filters, batch: String(batch) });
      const found = await run(() => exportPreflight(query));
      if (!found) return;
      if (found.total > 0) {
        setProblems({ list: found.problems, total: found.total });
        return;
      }
    }
    setProblems(null);
    await create({ encoding });
  };

  /** A POST answered with a message: 登録済みにする (which moves sales) or 再実行; the message once the history shows it. */
  const post = (call: () => Promise<{ message: string }>, movesSales: boolean) =>
    run(async () => {
      let message: string;
      try {
        message = (await call()).message;
      } finally {
        await after(movesSales);
      }
      setNotice(message);
    });
  const complete = async (row: ExportState) => {
    if (!(await confirm(completeConfirmation(row, row.open_count ?? row.total_rows ?? 0)))) return;
    await post(() => completeExport(row.id), true);
  };
  const retry = (row: ExportState) => void post(() => retryExport(row.id), false);

  return { ...submit, history, setPage, problems, setProblems, notice, dialog, create, start, complete, retry };
}
