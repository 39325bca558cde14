import { useId, useState } from 'react';
import { FormAlert, Info, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { useConfirm } from '../../../components/ui/use-confirm';
import { formatDateTime, formatLongDate } from '../../../lib/japan-time';
import { useCan } from '../../../lib/permissions';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { type LegalNotice, sendLegalNotice, testLegalNotice, useLegalNotice } from '../api';

type Sent = LegalNotice['notices'][number];

const STATE: Record<Sent['state'], string> = { queued: '送信待ち', sending: '送信中', done: '送信完了', cancelled: '中止' };
const count = (n: number) => n.toLocaleString('ja-JP');

/** 2026/11/28 14:05　admin@…　送信完了　送信済み 120／120件 */
const describe = (n: Sent) =>
  [
    formatDateTime(n.created_at),
    n.created_by_email ?? '（送信者不明）',
    STATE[n.state],
    n.state === 'queued'
      ? ''
      : `送信済み ${count(n.sent)}／${count(n.total)}件${n.failed ? `（失敗 ${count(n.failed)}件）` : ''}`,
  ]
    .filter(Boolean)
    .join('　');

function SentRecord({ notices }: { notices: Sent[] }) {
  if (!notices.length) return <Info>この改定のお知らせはまだ送信していません。</Info>;
  return (
    <ul aria-label="この改定のお知らせの送信記録">
      {notices.map((n) => (
        <li key={n.id}>{describe(n)}</li>
      ))}
    </ul>
  );
}

/** テスト送信 and 送信 (confirmed; a second notice of the same revision names the first). */
function useLegalNoticeActions(status: LegalNotice | undefined, refresh: () => Promise<unknown>) {
  const submit = useFormSubmit();
  const { confirm, dialog } = useConfirm();
  const [notice, setNotice] = useState('');
  const test = () => void submit.run(async () => setNotice((await testLegalNotice()).message));
  const send = async () => {
    if (!status) return;
    const earlier = status.notices;
    const yes = await confirm(
      earlier.length
        ? {
            title: '改定のお知らせをもう一度送ります',
            confirmLabel: 'もう一度送信する',
            danger: true,
            body: (
              <>
                <p>この改定のお知らせは送信済みです。</p>
                <ul>
                  {earlier.map((n) => (
                    <li key={n.id}>{describe(n)}</li>
                  ))}
                </ul>
                <p>もう一度送ると、会員{count(status.audience)}名全員に同じお知らせが再び届きます。</p>
              </>
            ),
          }
        : {
            title: '改定のお知らせを送信します',
            confirmLabel: '送信する',
            body: (
              <p>
                {`「${status.preview.subject}」を、メールアドレス確認済みの会員${count(status.audience)}名全員に送ります（ご案内メールの配信設定にかかわらず届きます）。`}
                送信後の取り消しはできません（未送信分の中止はできます）。
              </p>
            ),
          },
    );
    if (!yes) return;
    setNotice('');
    await submit.run(async () => {
      try {
        await sendLegalNotice({ revision: status.revision.id, resend: earlier.length > 0 });
        setNotice('改定のお知らせの送信を開始しました。進み具合は送信の記録と配信の履歴に表示されます。');
      } finally {
        await refresh();
      }
    });
  };
  return { submit, dialog, notice, test, send };
}

/** 利用規約第7条's notice of the current revision: its text, who it reaches, what was sent, test and send. */
export function LegalNoticePanel({ onSent }: { onSent: () => Promise<unknown> }) {
  const status = useLegalNotice();
  const actions = useLegalNoticeActions(status.data, () => Promise.all([status.mutate(), onSent()]));
  const canSend = useCan()('members:update');
  const [open, setOpen] = useState(false);
  const headingId = useId();
  const previewId = useId();
  const data = status.data;
  return (
    <section aria-labelledby={headingId} className="card">
      <h2 id={headingId}>利用規約・プライバシーポリシー改定のお知らせ</h2>
      {status.error ? <LoadError error={status.error} onRetry={() => void status.mutate()} /> : null}
      {!data && !status.error ? <Loading label="改定のお知らせを読み込んでいます…" /> : null}
      {data ? (
        <>
          <p>
            {`利用規約第7条に基づき、規約の改定（${formatLongDate(data.revision.revised_on)}改定、施行 ${data.revision.effective_at}）を、メールアドレス確認済みの会員全員（現在 ${count(data.audience)}名）にメールでお知らせします。`}
            契約上のお知らせのため、ご案内メールの配信設定にかかわらず送り、配信停止のリンクは付きません。文面は公開中の利用規約・プライバシーポリシーから作られます。
          </p>
          <h3>送信の記録</h3>
          <SentRecord notices={data.notices} />
          <FormAlert message={actions.submit.message} errors={actions.submit.errors} />
          {actions.notice ? <Notice>{actions.notice}</Notice> : null}
          <div className="actions">
            <button
              type="button"
              className="button secondary"
              aria-expanded={open}
              aria-controls={previewId}
              onClick={() => setOpen(!open)}
            >
              {open ? '文面を閉じる' : '文面を表示'}
            </button>
            {canSend ? (
              <>
                <button type="button" className="button secondary" disabled={actions.submit.busy} onClick={actions.test}>
                  テストメールを自分に送る
                </button>
                <button
                  type="button"
                  className="button primary"
                  disabled={actions.submit.busy}
                  onClick={() => void actions.send()}
                >
                  {data.notices.length ? '改定のお知らせを再送信' : '改定のお知らせを送信'}
                </button>
              </>
            ) : null}
          </div>
          <section id={previewId} aria-label="改定のお知らせの文面" hidden={!open}>
            <p>
              <strong>件名：</strong>
              {data.preview.subject}
            </p>
            <pre style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{data.preview.text}</pre>
          </section>
        </>
      ) : null}
      {actions.dialog}
    </section>
  );
}
