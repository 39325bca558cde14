import { Link } from 'react-router';
import { formatDateTimeSeconds } from '../../../lib/japan-time';
import { type AuditEntry, movedSalesPath, targetPath } from '../api/audit-logs';
import { ChangeList } from './change-list';

/** The record's kind and its name as a person knows it (a member, an 注文番号), linked to its screen. */
function Target({ entry }: { entry: AuditEntry }) {
  const path = targetPath(entry);
  return (
    <>
      <span className="audit-target-type">{entry.target_label}</span>{' '}
      {path ? (
        <Link to={path} className="audit-target-id">
          {entry.target_name}
        </Link>
      ) : (
        <span className="audit-target-id">{entry.target_name}</span>
      )}
    </>
  );
}

const count = (n: number) => `${n.toLocaleString('ja-JP')}件`;

/** 「対象の売上 12件（注文番号 …、… ほか）」 and a link to all of them on the licence-issue screen. */
function MovedSales({ entry }: { entry: AuditEntry }) {
  const sales = entry.sales;
  if (!sales) return null;
  return (
    <p className="audit-sales">
      <span className="audit-field">対象の売上</span>
      <span className="audit-sales-count">{count(sales.count)}</span>
      {sales.first_ids.length ? (
        <span className="audit-sales-ids">
          （{sales.first_names.join('、')}
          {sales.more ? ' ほか' : ''}）
        </span>
      ) : null}
      {sales.count > 0 ? (
        <>
          {' '}
          <Link to={movedSalesPath(entry)}>{`この${count(sales.count)}を一覧で見る`}</Link>
        </>
      ) : null}
    </p>
  );
}

/** Who did what to which record, and when: newest first. Below 720 px each entry is a card. */
export function AuditTable({ entries }: { entries: AuditEntry[] }) {
  return (
    <div className="table-wrap">
      <table className="table audit-table">
        <caption className="visually-hidden">操作履歴（新しい順）</caption>
        <thead>
          <tr>
            <th scope="col">日時</th>
            <th scope="col">操作者</th>
            <th scope="col">操作</th>
            <th scope="col">対象</th>
            <th scope="col">変更内容</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td data-label="日時">
                <time dateTime={entry.created_at}>{formatDateTimeSeconds(entry.created_at)}</time>
              </td>
              <td data-label="操作者" className="audit-actor">
                {entry.actor_email ?? '不明'}
              </td>
              <td data-label="操作">{entry.action_label}</td>
              <td data-label="対象">
                <Target entry={entry} />
              </td>
              <td data-label="変更内容">
                <MovedSales entry={entry} />
                {entry.sales && entry.changes.length === 0 ? null : <ChangeList changes={entry.changes} />}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
