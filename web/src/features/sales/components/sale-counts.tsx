import { type SaleCounts, SaleStatus, type SaleStatusLabels, statusLabel } from '../api';

export const count = (n: number) => `${n.toLocaleString('ja-JP')}件`;

/** 出力待ち・処理中・登録済み・返金済み of the search. */
export function SaleCountList({ counts, statuses }: { counts: SaleCounts; statuses: SaleStatusLabels }) {
  const rows = [
    [statusLabel(statuses, SaleStatus.AwaitingExport), counts.awaiting],
    [statusLabel(statuses, SaleStatus.InProgress), counts.in_progress],
    [statusLabel(statuses, SaleStatus.Registered), counts.registered],
    ['返金済み', counts.refunded],
  ] as const;
  return (
    <dl className="counts" aria-label="検索条件に合う売上の件数">
      {rows.map(([label, n]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{count(n)}</dd>
        </div>
      ))}
    </dl>
  );
}
