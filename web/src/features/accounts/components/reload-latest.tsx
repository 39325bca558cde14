/** Shown when someone saved the user first (409): the edit starts again from what is saved now. */
export function ReloadLatest({ busy, onReload }: { busy: boolean; onReload: () => void }) {
  return (
    <p>
      <button type="button" className="button" onClick={onReload} disabled={busy}>
        最新の内容を読み込む
      </button>
    </p>
  );
}
