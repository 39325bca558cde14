import { useState } from 'react';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { Pager } from '../../../components/ui/pager';
import { formatDateTime } from '../../../lib/japan-time';
import { type AuditChange, useUserAuditLogs } from '../api/use-user-history';

const changeText = (change: AuditChange) =>
  change.before === null
    ? `${change.label}：${change.after ?? '（なし）'}`
    : `${change.label}：${change.before} → ${change.after ?? '（なし）'}`;

/**
 * Administrators' actions on this user (edits, password, role, mails asked for), newest first; paged.
 * A list rather than a table: each entry's changes wrap at any width.
 */
export function UserAuditLog({ userId }: { userId: string }) {
  const [page, setPage] = useState(1);
  const { data, error, isLoading, mutate } = useUserAuditLogs(userId, page);
  return (
    <section className="subsection" aria-labelledby="audit-log-heading">
      <h2 id="audit-log-heading">操作履歴</h2>
      {isLoading ? <Loading label="操作履歴を読み込んでいます…" /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data && data.total === 0 ? <p>このユーザーに対する管理者の操作はまだありません。</p> : null}
      {data && data.audit_logs.length > 0 ? (
        <>
          <ol style={{ listStyle: 'none', padding: 0, overflowWrap: 'anywhere' }}>
            {data.audit_logs.map((entry) => (
              <li key={entry.id} style={{ borderBottom: '1px solid var(--color-border)', padding: '8px 0' }}>
                <strong>{entry.action_label}</strong>
                <br />
                <span className="small">
                  {formatDateTime(entry.created_at)}　{entry.actor_email ?? '不明'}
                </span>
                {entry.changes.length ? (
                  <ul style={{ margin: '4px 0 0', paddingLeft: '1.2em' }}>
                    {entry.changes.map((change) => (
                      <li key={change.field}>{changeText(change)}</li>
                    ))}
                  </ul>
                ) : null}
              </li>
            ))}
          </ol>
          <Pager page={data.page} perPage={data.per_page} total={data.total} onPage={setPage} label="操作履歴のページ送り" />
        </>
      ) : null}
    </section>
  );
}
