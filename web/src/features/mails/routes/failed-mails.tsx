import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { NoWorkerAlert } from '../../../components/ui/no-worker-alert';
import { PagedTable, pageOf } from '../../../components/ui/paged-table';
import { usePageParam } from '../../../components/ui/pager';
import { useConfirm } from '../../../components/ui/use-confirm';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { type FailedMail, type MailView, resendMail, useFailedMails, useMailWorkers } from '../api';
import { FailedMailTable } from '../components/failed-mail-table';

const viewOf = (params: URLSearchParams): MailView => (params.get('status') === 'stuck' ? 'stuck' : 'failed');

/** 再送信 of one mail (same Message-ID, audited), confirmed. */
function useResend(refresh: () => Promise<unknown>) {
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
      const { message } = await resendMail(mail.id);
      setNotice(message);
      await refresh();
    });
  };
  return { ...resend, notice, dialog, send };
}

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
  const resend = useResend(mutate);

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
        <NoWorkerAlert waiting="メールはワーカーが送ります。再送信したメールも、まだ送られません。" />
      ) : null}
      {resend.notice ? <Notice>{resend.notice}</Notice> : null}
      <FormAlert message={resend.message} errors={resend.errors} />
      <PagedTable
        list={pageOf(data, (d) => d.mails)}
        isLoading={isLoading}
        loadingLabel={stuck ? '送信中のまま止まっているメールを読み込んでいます…' : '送信に失敗したメールを読み込んでいます…'}
        error={error}
        onRetry={() => void mutate()}
        empty={
          data?.total === 0 ? (
            <p>{stuck ? '送信中のまま止まっているメールはありません。' : '送信に失敗したメールはありません。'}</p>
          ) : (
            <p>このページにメールはありません。</p>
          )
        }
        summary={
          <p className="small" aria-live="polite">
            全{(data?.total ?? 0).toLocaleString('ja-JP')}件
          </p>
        }
        onPage={setPage}
      >
        {(mails) => (
          <FailedMailTable mails={mails} stuck={stuck} busy={resend.busy} onResend={(mail) => void resend.send(mail)} />
        )}
      </PagedTable>
      {resend.dialog}
    </section>
  );
}
