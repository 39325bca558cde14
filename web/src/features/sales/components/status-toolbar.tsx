import { useCan } from '../../../lib/permissions';
import { SaleStatus, type SaleStatusLabels, statusLabel } from '../api';
import { count } from './sale-counts';

type Move = typeof SaleStatus.InProgress | typeof SaleStatus.Registered;

/** One move's button: the selected sales of its status when any are selected, else every such sale of the search. */
function MoveButton({
  to,
  label,
  selectedCount,
  matching,
  disabled,
  onMove,
}: {
  to: Move;
  label: (status: SaleStatus) => string;
  selectedCount: number;
  matching: number;
  disabled: boolean;
  onMove: (to: Move, scope: 'selected' | 'search') => void;
}) {
  const target = label(to);
  const from = label(to === SaleStatus.InProgress ? SaleStatus.AwaitingExport : SaleStatus.InProgress);
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
  statuses,
  licenseChosen,
  busy,
  selectedCount,
  matching,
  revertable,
  onMove,
  onRevert,
}: {
  /** The server's words for the states: the move buttons wait for them (they come with the counts). */
  statuses: SaleStatusLabels | undefined;
  licenseChosen: boolean;
  busy: boolean;
  selectedCount: (status: SaleStatus) => number;
  matching: (from: SaleStatus) => number;
  revertable: number;
  onMove: (to: Move, scope: 'selected' | 'search') => void;
  onRevert: () => void;
}) {
  const can = useCan();
  const disabled = !licenseChosen || busy;
  const label = (status: SaleStatus) => statusLabel(statuses, status);
  if (!can('sales:update')) return null;
  return (
    <div className="actions toolbar">
      {statuses ? (
        <>
          <MoveButton
            to={SaleStatus.InProgress}
            label={label}
            selectedCount={selectedCount(SaleStatus.AwaitingExport)}
            matching={matching(SaleStatus.AwaitingExport)}
            disabled={disabled}
            onMove={onMove}
          />
          <MoveButton
            to={SaleStatus.Registered}
            label={label}
            selectedCount={selectedCount(SaleStatus.InProgress)}
            matching={matching(SaleStatus.InProgress)}
            disabled={disabled}
            onMove={onMove}
          />
        </>
      ) : null}
      <button type="button" className="button" disabled={busy || revertable === 0} onClick={onRevert}>
        選択した{count(revertable)}を差し戻す
      </button>
      {!licenseChosen ? <span className="small">状態を進めるには、ライセンスを選んで検索してください。</span> : null}
    </div>
  );
}
