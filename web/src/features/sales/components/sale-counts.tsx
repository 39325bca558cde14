import type { SaleCounts } from '../api';

export const count = (n: number) => `${n.toLocaleString('ja-JP')}件`;

/** 出力待ち・処理中・登録済み・返金済み of the search. */
export function SaleCountList({ counts }: { counts: SaleCounts }) {
  const rows = [
    ['出力待ち', counts.awaiting],
    ['処理中', counts.in_progress],
    ['登録済み', counts.registered],
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
