import { formatDateTime } from '../../../lib/japan-time';

/** A draft left from an earlier visit: 復元 or 破棄 (starting to type discards it). */
export function DraftWaiting({
  waiting,
  busy,
  onRestore,
  onDiscard,
}: {
  waiting: { savedAt: number; pictureCount: number };
  busy: boolean;
  onRestore: () => void;
  onDiscard: () => void;
}) {
  return (
    <div className="notice" role="status">
      <p>
        保存していない入力内容があります（{formatDateTime(new Date(waiting.savedAt).toISOString())}まで入力、画像
        {waiting.pictureCount}枚）。復元せずに入力を始めると、その内容は破棄されます。
      </p>
      <div className="actions">
        <button type="button" className="button primary" onClick={onRestore} disabled={busy}>
          入力内容を復元する
        </button>
        <button type="button" className="button secondary" onClick={onDiscard} disabled={busy}>
          入力内容を破棄
        </button>
      </div>
    </div>
  );
}
