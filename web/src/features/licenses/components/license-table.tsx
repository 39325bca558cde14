import { Link } from 'react-router';
import { formatPrice } from '../../../lib/format';
import { formatDateTime } from '../../../lib/japan-time';
import { useCan } from '../../../lib/permissions';
import type { License, useSalesCounts } from '../api/licenses';

export const moveButtonId = (id: number, direction: 'up' | 'down') => `license-${id}-move-${direction}`;

interface LicenseRowActions {
  busy: boolean;
  onMove: (license: License, direction: 'up' | 'down') => void;
  onTogglePublished: (license: License) => void;
}

function MoveCell({
  license,
  place,
  total,
  busy,
  onMove,
}: { license: License; place: number; total: number } & LicenseRowActions) {
  const can = useCan();
  return (
    <td className="license-order">
      <span className="license-place">{place}</span>
      {can('licenses:update') ? (
        <span className="license-move">
          <button
            type="button"
            id={moveButtonId(license.id, 'up')}
            className="button small"
            aria-label={`「${license.name}」を上へ（いま${place}番目）`}
            disabled={busy || place === 1}
            onClick={() => onMove(license, 'up')}
          >
            上へ
          </button>
          <button
            type="button"
            id={moveButtonId(license.id, 'down')}
            className="button small"
            aria-label={`「${license.name}」を下へ（いま${place}番目）`}
            disabled={busy || place === total}
            onClick={() => onMove(license, 'down')}
          >
            下へ
          </button>
        </span>
      ) : null}
    </td>
  );
}

function SoldCell({ license, counts }: { license: License; counts: ReturnType<typeof useSalesCounts> }) {
  const sold = counts.byLicense.get(license.id);
  if (counts.error) return <td>—</td>;
  if (counts.isLoading)
    return (
      <td>
        <span className="small">読み込み中…</span>
      </td>
    );
  return (
    <td>
      {(sold?.count ?? 0).toLocaleString('ja-JP')}件
      {sold?.refunded_count ? <div className="small">返金 {sold.refunded_count.toLocaleString('ja-JP')}件</div> : null}
    </td>
  );
}

function LicenseRow({
  license,
  place,
  total,
  ordered,
  counts,
  ...actions
}: {
  license: License;
  place: number;
  total: number;
  ordered: boolean;
  counts: ReturnType<typeof useSalesCounts>;
} & LicenseRowActions) {
  const can = useCan();
  return (
    <tr>
      {ordered ? <MoveCell license={license} place={place} total={total} {...actions} /> : null}
      <td>{license.id}</td>
      <td>{license.pictures[0] ? <img src={license.pictures[0].thumbnail_url} alt="" width={96} height={72} /> : '—'}</td>
      <td>
        <Link to={`/admin/licenses/${license.id}`}>{license.name}</Link>
      </td>
      <td>{formatPrice(license.price)}</td>
      <SoldCell license={license} counts={counts} />
      <td className="license-published">
        {license.published ? <span>公開</span> : <span className="tag">非公開</span>}
        {can('licenses:update') ? (
          <button
            type="button"
            className="button small"
            aria-label={license.published ? `「${license.name}」を非公開にする` : `「${license.name}」を公開する`}
            disabled={actions.busy}
            onClick={() => actions.onTogglePublished(license)}
          >
            {license.published ? '非公開にする' : '公開する'}
          </button>
        ) : null}
      </td>
      <td>{formatDateTime(license.updated_at)}</td>
    </tr>
  );
}

/** The licences of one page: 表示順 with 上へ・下へ when in the members' order, 販売数, 公開 and its switch. */
export function LicenseTable({
  licenses,
  offset,
  total,
  ordered,
  counts,
  ...actions
}: {
  licenses: License[];
  offset: number;
  total: number;
  ordered: boolean;
  counts: ReturnType<typeof useSalesCounts>;
} & LicenseRowActions) {
  return (
    <div className="table-wrap">
      <table className="table license-table">
        <caption className="visually-hidden">ライセンスの一覧</caption>
        <thead>
          <tr>
            {ordered ? <th scope="col">表示順</th> : null}
            <th scope="col">ID</th>
            <th scope="col">画像</th>
            <th scope="col">ライセンス名</th>
            <th scope="col">価格</th>
            <th scope="col">販売数</th>
            <th scope="col">公開</th>
            <th scope="col">更新日時</th>
          </tr>
        </thead>
        <tbody>
          {licenses.map((license, index) => (
            <LicenseRow
              key={license.id}
              license={license}
              place={offset + index + 1}
              total={total}
              ordered={ordered}
              counts={counts}
              {...actions}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}
