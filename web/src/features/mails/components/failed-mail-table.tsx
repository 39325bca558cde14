import { Link } from 'react-router';
import { formatDateTime } from '../../../lib/japan-time';
import { useCan } from '../../../lib/permissions';
import type { FailedMail } from '../api';

/**
 * An address that may wrap only after 「@」 and before each 「.」 (not in the middle of a word), so
 * its column keeps a readable width and the buttons beside it stay on one line.
 */
function Address({ email }: { email: string }) {
  const parts = email.split(/(?=\.)|(?<=@)/);
  return (
    <span className="mail-address">
      {parts.map((part, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string
        <span key={i}>
          {i > 0 ? <wbr /> : null}
          {part}
        </span>
      ))}
    </span>
  );
}

/** The mail server's answer in words an administrator reads; the raw answer stays one click away. */
function errorSummary(mail: FailedMail): string {
  if (mail.permanent) return 'メールサーバーが、この宛先への配送を断りました。宛先が正しいか確かめてください。';
  return 'メールサーバーにつながらないか、一時的に受け付けられませんでした。';
}

function MailRow({
  mail,
  stuck,
  busy,
  onResend,
}: {
  mail: FailedMail;
  stuck: boolean;
  busy: boolean;
  /** Absent for a role that may not resend (mails:resend): no column. */
  onResend?: (mail: FailedMail) => void;
}) {
  return (
    <tr>
      <td>{formatDateTime(mail.failed_at ?? mail.created_at ?? '')}</td>
      <td>
        {mail.kind_label}
        <br />
        <span className="small">
          {mail.user_id ? (
            <Link to={`/admin/users/${mail.user_id}`}>
              <Address email={mail.recipient} />
            </Link>
          ) : (
            <Address email={mail.recipient} />
          )}
        </span>
      </td>
      <td>
        <span className="tag">
          {stuck ? '送信中のまま停止' : mail.permanent ? '送信失敗（宛先が拒否）' : '送信失敗（一時的・自動で再送）'}
        </span>
        （{mail.attempts}回試行）
        {mail.error ? (
          <>
            <p className="mail-error">{errorSummary(mail)}</p>
            <details className="mail-raw">
              <summary>メールサーバーの応答（原文）</summary>
              <span className="small">{mail.error}</span>
            </details>
          </>
        ) : null}
      </td>
      {onResend ? (
        <td>
          <button
            type="button"
            className="button nowrap"
            aria-label={`${mail.recipient} 宛ての「${mail.kind_label}」を再送信`}
            disabled={busy}
            onClick={() => onResend(mail)}
          >
            再送信
          </button>
        </td>
      ) : null}
    </tr>
  );
}

/** The mails of one page: when, what and to whom, the server's answer, and 再送信. */
export function FailedMailTable({
  mails,
  stuck,
  busy,
  onResend,
}: {
  mails: FailedMail[];
  stuck: boolean;
  busy: boolean;
  onResend: (mail: FailedMail) => void;
}) {
  const canResend = useCan()('mails:resend');
  return (
    <div className="table-wrap">
      <table className="table failed-mails">
        <caption className="visually-hidden">{stuck ? '送信中のまま止まっているメール' : '送信に失敗したメール'}</caption>
        <thead>
          <tr>
            <th scope="col">日時</th>
            <th scope="col">種類・宛先</th>
            <th scope="col">結果・メールサーバーの応答</th>
            {canResend ? (
              <th scope="col">
                <span className="visually-hidden">操作</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {mails.map((mail) => (
            <MailRow key={mail.id} mail={mail} stuck={stuck} busy={busy} onResend={canResend ? onResend : undefined} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
