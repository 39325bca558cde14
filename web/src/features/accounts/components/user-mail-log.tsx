import { useState } from 'react';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { Pager } from '../../../components/ui/pager';
import { formatDateTime } from '../../../lib/japan-time';
import { type UserMail, useUserMails } from '../api/use-user-history';

const wrap = { overflowWrap: 'anywhere' } as const;

function MailResult({ mail }: { mail: UserMail }) {
  if (mail.status === 'sent') {
    return <>送信済み{mail.attempts > 1 ? `（${mail.attempts}回目で送信）` : ''}</>;
  }
  if (mail.status === 'sending') return <>送信中</>;
  return (
    <>
      <strong>{mail.permanent ? '送信失敗（宛先が拒否・自動では再送しません）' : '送信失敗（自動で再送します）'}</strong>（
      {mail.attempts}回試行）
      {mail.error ? (
        <>
          <br />
          <span className="small" style={wrap}>
            メールサーバーの応答：{mail.error}
          </span>
        </>
      ) : null}
    </>
  );
}

/** When the mail went out, or was last tried. */
const mailTime = (mail: UserMail) => mail.sent_at ?? mail.failed_at ?? mail.created_at ?? null;

/** The administrator's view of a member's mails: kind, recipient, sent or failed (and why), when; paged. */
export function UserMailLog({ userId, watchUntil }: { userId: string; watchUntil: number }) {
  const [page, setPage] = useState(1);
  const { data, error, isLoading, mutate } = useUserMails(userId, page, watchUntil);
  return (
    <section className="subsection" aria-labelledby="mail-log-heading">
      <h2 id="mail-log-heading">メール送信履歴</h2>
      {isLoading ? <Loading label="メール送信履歴を読み込んでいます…" /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data && data.total === 0 ? <p>このユーザーに送ったメールはまだありません。</p> : null}
      {data && data.mails.length > 0 ? (
        <>
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">日時</th>
                  <th scope="col">種類・宛先</th>
                  <th scope="col">結果</th>
                </tr>
              </thead>
              <tbody>
                {data.mails.map((mail) => {
                  const time = mailTime(mail);
                  return (
                    <tr key={mail.id}>
                      <td>{time ? formatDateTime(time) : '—'}</td>
                      <td>
                        {mail.kind_label}
                        <br />
                        <span className="small" style={wrap}>
                          {mail.recipient}
                        </span>
                      </td>
                      <td>
                        <MailResult mail={mail} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <Pager
            page={data.page}
            perPage={data.per_page}
            total={data.total}
            onPage={setPage}
            label="メール送信履歴のページ送り"
          />
        </>
      ) : null}
    </section>
  );
}
