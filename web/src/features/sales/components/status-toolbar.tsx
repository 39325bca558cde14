import { SaleStatus } from '../api';
import { count } from './sale-counts';

type Move = typeof SaleStatus.InProgress | typeof SaleStatus.Registered;

/** One move's button: the selected sales of its status when any are selected, else every such sale of the search. */
function MoveButton({
  to,
  selectedCount,
  matching,
  disabled,
  onMove,
}: {
  to: Move;
  selectedCount: number;
  matching: number;
  disabled: boolean;
  onMove: (to: Move, scope: 'selected' | 'search') => void;
}) {
  const target = to === SaleStatus.InProgress ? '処理中' : '登録済み';
  const from = to === SaleStatus.InProgress ? '出力待ち' : '処理中';
  return selectedCount ? (
    <button type="button" className="button" disabled={disabled} onClick={() => onMove(to, 'selected')}>
      選択した{count(selectedCount)}を{target}にする
    </button>
  ) : (
    <button type="button" className="button" disabled={disabled || matching === 0} onClick={() => onMove(to, 'search')}>
      検索結果の{from}
      {count(matching)}をすべて{target}にする
    </button>
  );
}

/** 処理中にする・登録済みにする・差し戻す for the selection or the whole search. */
export function StatusToolbar({
  licenseChosen,
  busy,
  selectedCount,
  matching,
  revertable,
  onMove,
  onRevert,
}: {
  licenseChosen: boolean;
  busy: boolean;
  selectedCount: (status: SaleStatus) => number;
  matching: (from: SaleStatus) => number;
  revertable: number;
  onMove: (to: Move, scope: 'selected' | 'search') => void;
  onRevert: () => void;
}) {
  const disabled = !licenseChosen || busy;
  return (
    <div className="actions toolbar">
      <MoveButton
        to={SaleStatus.InProgress}
        selectedCount={selectedCount(SaleStatus.AwaitingExport)}
        matching={matching(SaleStatus.AwaitingExport)}
        disabled={disabled}
        onMove={onMove}
      />
      <MoveButton
        to={SaleStatus.Registered}
        selectedCount={selectedCount(SaleStatus.InProgress)}
        matching={matching(SaleStatus.InProgress)}
        disabled={disabled}
        onMove={onMove}
      />
      <button type="button" className="button" disabled={busy || revertable === 0} onClick={onRevert}>
        選択した{count(revertable)}を差し戻す
      </button>
      {!licenseChosen ? <span className="small">状態を進めるには、ライセンスを選んで検索してください。</span> : null}
    </div>
  );
}
