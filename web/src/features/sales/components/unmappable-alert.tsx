import { Link } from 'react-router';
import type { Unmappable } from '../api';
import { orderDetailPath } from '../order-api';
import { count } from './sale-counts';

const FIELD: Record<string, string> = {
  email: 'メールアドレス',
  last_name: '姓',
  first_name: '名',
  group: 'グループ',
  affiliation_name: '所属名',
  license_name: 'ライセンス名',
};

/** The cells Shift_JIS (CP932) cannot hold, and the two ways on: UTF-8, or 〓 in their place. */
export function UnmappableAlert({
  problems,
  busy,
  onUtf8,
  onReplace,
}: {
  problems: { list: Unmappable[]; total: number };
  busy: boolean;
  onUtf8: () => void;
  onReplace: () => void;
}) {
  return (
    <div className="alert" role="alert">
      <p>
        Shift_JIS（CP932）で表せない文字が{count(problems.total)}
        あります。UTF-8で作成するか、表せない文字を「〓」に置き換えて作成してください。
      </p>
      <ul>
        {problems.list.map((p) => (
          <li key={`${p.sale_id}-${p.field}`}>
            <Link to={orderDetailPath(p.sale_id)}>{p.order_number ? `注文番号 ${p.order_number}` : `売上ID ${p.sale_id}`}</Link>{' '}
            の{FIELD[p.field] ?? p.field}「{p.text}」：{p.characters.join(' ')}
          </li>
        ))}
      </ul>
      <div className="actions">
        <button type="button" className="button primary" disabled={busy} onClick={onUtf8}>
          UTF-8で作成する
        </button>
        <button type="button" className="button" disabled={busy} onClick={onReplace}>
          〓に置き換えてShift_JISで作成する
        </button>
      </div>
    </div>
  );
}
