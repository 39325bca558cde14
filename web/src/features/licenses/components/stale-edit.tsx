/** The 409 of a licence edit: someone saved first; the only way on is to load what they saved. */
export function StaleEdit({ busy, onReload }: { busy: boolean; onReload: () => void }) {
  return (
    <div className="alert" role="alert">
      <p>他の管理者がこのライセンスを先に更新しました。この画面の内容は古くなっているため、このままでは保存できません。</p>
      <p>
        「最新の内容を読み込む」を押すと、保存されている最新の内容を入力画面に読み込みます。この画面で入力した変更（追加した画像を含む）は破棄されますので、必要な変更はもう一度行ってください。
      </p>
      <button type="button" className="button" onClick={onReload} disabled={busy}>
        最新の内容を読み込む
      </button>
    </div>
  );
}
