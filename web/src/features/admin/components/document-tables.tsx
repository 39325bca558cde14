import { Link } from 'react-router';
import { formatPrice } from '../../../lib/format';
import { formatDateTime, formatLongDate } from '../../../lib/japan-time';
import type { Invoice, Quotation } from '../documents-api';

type Member = Quotation['user'];

/** The member as they are now, linked to their page; a deleted account says so. */
function MemberCell({ userId, user }: { userId: string | null; user: Member }) {
  if (!userId || !user) return <td>（削除された会員）</td>;
  const name = `${user.last_name} ${user.first_name}`.trim();
  return (
    <td style={{ overflowWrap: 'anywhere' }}>
      <Link to={`/admin/users/${userId}`}>{name || user.email}</Link>
      <div className="small">{user.email}</div>
    </td>
  );
}

function PdfButton({ number, busy, onDownload }: { number: string; busy: boolean; onDownload: (number: string) => void }) {
  return (
    <button type="button" className="button small" disabled={busy} onClick={() => onDownload(number)}>
      PDF<span className="visually-hidden">（{number}）</span>
    </button>
  );
}

interface TableProps<T> {
  rows: T[];
  busy: boolean;
  onDownload: (number: string) => void;
}

/** 御見積書: number, issue date and 有効期限 (JST), 宛名, member, licence, 税込 amount, the PDF again. */
export function QuotationTable({ rows, busy, onDownload }: TableProps<Quotation>) {
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className="visually-hidden">発行された御見積書</caption>
        <thead>
          <tr>
            <th scope="col">見積番号</th>
            <th scope="col">発行日時（日本時間）</th>
            <th scope="col">有効期限</th>
            <th scope="col">宛名</th>
            <th scope="col">会員</th>
            <th scope="col">ライセンス</th>
            <th scope="col">金額</th>
            <th scope="col">PDF</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.quotation_number}>
              <td className="order-number">{row.quotation_number}</td>
              <td>{formatDateTime(row.issued_at)}</td>
              <td>{formatLongDate(row.expires_at)}</td>
              <td style={{ overflowWrap: 'anywhere' }}>{row.addressee ?? '（記録なし）'}</td>
              <MemberCell userId={row.user_id} user={row.user} />
              <td>{row.license_name}</td>
              <td>{formatPrice(row.amount)}</td>
              <td>
                <PdfButton number={row.quotation_number} busy={busy} onDownload={onDownload} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** 御請求書: number and order, issue date and お支払期限 (JST), 宛名, member, 税込 amount, the member's downloads, the PDF. */
export function InvoiceTable({ rows, busy, onDownload }: TableProps<Invoice>) {
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className="visually-hidden">発行された御請求書</caption>
        <thead>
          <tr>
            <th scope="col">請求書番号</th>
            <th scope="col">発行日時（日本時間）</th>
            <th scope="col">お支払期限</th>
            <th scope="col">宛名</th>
            <th scope="col">会員</th>
            <th scope="col">ライセンス・注文番号</th>
            <th scope="col">金額</th>
            <th scope="col">会員のダウンロード</th>
            <th scope="col">PDF</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.invoice_number}>
              <td className="order-number">{row.invoice_number}</td>
              <td>{formatDateTime(row.issued_at)}</td>
              <td>{formatDateTime(row.due_at)}</td>
              <td style={{ overflowWrap: 'anywhere' }}>{row.addressee}</td>
              <MemberCell userId={row.user_id} user={row.user} />
              <td>
                {row.license_name}
                <div className="small order-number">{row.order_number}</div>
              </td>
              <td>{formatPrice(row.amount)}</td>
              <td>
                {row.downloads.toLocaleString('ja-JP')}回
                <div className="small">最後：{formatDateTime(row.last_downloaded_at)}</div>
              </td>
              <td>
                <PdfButton number={row.invoice_number} busy={busy} onDownload={onDownload} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
