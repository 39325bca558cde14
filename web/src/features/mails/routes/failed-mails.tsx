import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { Pager, usePageParam } from '../../../components/ui/pager';
import { useConfirm } from '../../../components/ui/use-confirm';
import { api } from '../../../lib/api';
import { formatDateTime } from '../../../lib/japan-time';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { type FailedMail, type MailView, useFailedMails, useMailWorkers } from '../api';

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

const viewOf = (params: URLSearchParams): MailView => (params.get('status') === 'stuck' ? 'stuck' : 'failed');

/**
 * /admin/mails: e-mails that could not be sent, newest first — refused for good by the mail server
 * (SMTP 5xx: not tried again) or failing for now (retried automatically for a day) — with the
 * server's answer, and a resend for each (same Message-ID, audited).
 */
export function FailedMailsPage() {
  const [params] = useSearchParams();
  const { page, setPage } = usePageParam();
  const view = viewOf(params);
  const stuck = view === 'stuck';
  const { data, error, isLoading, mutate } = useFailedMails(page, view);
  const workers = useMailWorkers();
  const resend = useFormSubmit();
  const [notice, setNotice] = useState('');
  const { confirm, dialog } = useConfirm();

  const send = async (mail: FailedMail) => {
    const yes = await confirm({
      title: 'メールを再送信します',
      confirmLabel: '再送信する',
      body: (
        <p>
          {mail.recipient} 宛ての「{mail.kind_label}」を1通、もう一度送ります。
        </p>
      ),
    });
    if (!yes) return;
    setNotice('');
    void resend.run(async () => {
      const { message } = await api<{ message: string }>(`/api/mails/${mail.id}/resend`, { method: 'POST' });
      setNotice(message);
      await mutate();
    });
  };

  return (
    <section className="card">
      <h1>送信に失敗したメール</h1>
      <p className="lead">
        {'メールサーバーが受け取らなかったメールです。宛先が受け取りを拒否したもの（恒久的な失敗）は自動では再送しません。' +
          '宛先を確かめてから再送信してください。一時的な失敗は24時間ほど自動で再送を続けます。'}
      </p>
      <nav aria-label="表示するメール" className="toolbar" style={{ display: 'flex', flexWrap: 'wrap', gap: '8px 16px' }}>
        <Link to="/admin/mails" aria-current={stuck ? undefined : 'page'}>
          送信に失敗したメール
        </Link>
        <Link to="/admin/mails?status=stuck" aria-current={stuck ? 'page' : undefined}>
          送信中のまま止まっているメール
        </Link>
      </nav>
      {stuck ? (
        <p>
          {'送信を始めた処理担当（ワーカー）が止まったなどの理由で、送信中のまま長く止まっているメールです。' +
            '通常は自動で送り直されます。残り続ける場合は、ワーカーが動いているか確かめてから再送信してください。'}
        </p>
      ) : null}
      {workers.data?.summary.workers_alive === false ? (
        <div className="alert" role="alert">
          <p>処理担当（ワーカー）が動いていません。</p>
          <p className="small">
            メールはワーカーが送ります。再送信したメールも、ワーカーが動き出すまで送られません。続くときはシステムの担当者に連絡してください。
          </p>
        </div>
      ) : null}
      {notice ? <Notice>{notice}</Notice> : null}
      <FormAlert message={resend.message} errors={resend.errors} />
      {isLoading ? (
        <Loading
          label={stuck ? '送信中のまま止まっているメールを読み込んでいます…' : '送信に失敗したメールを読み込んでいます…'}
        />
      ) : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data && data.total === 0 ? (
        <p>{stuck ? '送信中のまま止まっているメールはありません。' : '送信に失敗したメールはありません。'}</p>
      ) : null}
      {data && data.total > 0 && data.mails.length === 0 ? <p>このページにメールはありません。</p> : null}
      {data && data.mails.length > 0 ? (
        <>
          <p className="small" aria-live="polite">
            全{data.total.toLocaleString('ja-JP')}件
          </p>
          <div className="table-wrap">
            <table className="table failed-mails">
              <caption className="visually-hidden">{stuck ? '送信中のまま止まっているメール' : '送信に失敗したメール'}</caption>
              <thead>
                <tr>
                  <th scope="col">日時</th>
                  <th scope="col">種類・宛先</th>
                  <th scope="col">結果・メールサーバーの応答</th>
                  <th scope="col">
                    <span className="visually-hidden">操作</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.mails.map((mail) => (
                  <tr key={mail.id}>
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
                        {stuck
                          ? '送信中のまま停止'
                          : mail.permanent
                            ? '送信失敗（宛先が拒否）'
                            : '送信失敗（一時的・自動で再送）'}
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
                    <td>
                      <button
                        type="button"
                        className="button nowrap"
                        aria-label={`${mail.recipient} 宛ての「${mail.kind_label}」を再送信`}
                        disabled={resend.busy}
                        onClick={() => void send(mail)}
                      >
                        再送信
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={data.page} perPage={data.per_page} total={data.total} onPage={setPage} />
        </>
      ) : null}
      {dialog}
    </section>
  );
}
