import { formatDateTime } from '../../../lib/japan-time';
import type { Announcement } from '../api';

const STATE: Record<Announcement['state'], string> = {
  queued: '送信待ち',
  sending: '送信中',
  done: '送信完了',
  cancelled: '中止',
};

/** Each announcement with its progress (sent / total, failed) and, while it runs and given `onCancel`, 中止. */
export function AnnouncementTable({
  announcements,
  busy,
  onCancel,
}: {
  announcements: Announcement[];
  busy: boolean;
  onCancel?: (announcement: Announcement) => void;
}) {
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className="visually-hidden">お知らせ配信の履歴</caption>
        <thead>
          <tr>
            <th scope="col">作成日時</th>
            <th scope="col">件名</th>
            <th scope="col">状態</th>
            <th scope="col">送信済み／対象</th>
            <th scope="col">失敗</th>
            {onCancel ? <th scope="col">操作</th> : null}
          </tr>
        </thead>
        <tbody>
          {announcements.map((a) => (
            <tr key={a.id}>
              <td>{formatDateTime(a.created_at)}</td>
              <td>
                {a.kind === 'legal_notice' ? <span className="tag">規約改定の通知</span> : null} {a.subject}
              </td>
              <td>{STATE[a.state]}</td>
              <td>
                {a.state === 'queued' ? (
                  '—'
                ) : (
                  <>
                    <progress max={Math.max(a.total, 1)} value={a.sent} aria-label={`${a.subject}の送信状況`} />{' '}
                    {a.sent.toLocaleString('ja-JP')}／{a.total.toLocaleString('ja-JP')}件
                  </>
                )}
              </td>
              <td>{a.failed.toLocaleString('ja-JP')}件</td>
              {onCancel ? (
                <td>
                  {a.state === 'queued' || a.state === 'sending' ? (
                    <button type="button" className="button secondary small" disabled={busy} onClick={() => onCancel(a)}>
                      中止する
                    </button>
                  ) : null}
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
