import { useState } from 'react';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { PagedTable, pageOf } from '../../../components/ui/paged-table';
import { usePageParam } from '../../../components/ui/pager';
import { useConfirm } from '../../../components/ui/use-confirm';
import { useCan } from '../../../lib/permissions';
import { useFormSubmit } from '../../../lib/use-form-submit';
import {
  type Announcement,
  type AnnouncementDraft,
  cancelAnnouncement,
  previewAnnouncement,
  sendAnnouncement,
  testAnnouncement,
  useAnnouncements,
} from '../api';
import { AnnouncementTable } from '../components/announcement-table';
import { ComposeFields, type Draft } from '../components/compose-form';
import { LegalNoticePanel } from '../components/legal-notice-panel';

const EMPTY: Draft = { subject: '', body: '', licenseId: '' };
const toRequest = (d: Draft): AnnouncementDraft => ({
  subject: d.subject,
  body: d.body,
  license_id: d.licenseId ? Number(d.licenseId) : null,
});

/** プレビュー, テスト送信 and 配信 (confirmed) of the draft. */
function useCompose(refresh: () => Promise<unknown>) {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [preview, setPreview] = useState<{ subject: string; text: string } | null>(null);
  const [notice, setNotice] = useState('');
  const submit = useFormSubmit();
  const { confirm, dialog } = useConfirm();
  const change = (next: Draft) => {
    setDraft(next);
    setPreview(null);
  };
  const showPreview = () => void submit.run(async () => setPreview(await previewAnnouncement(toRequest(draft))));
  const test = () =>
    void submit.run(async () => {
      setNotice((await testAnnouncement(toRequest(draft))).message);
    });
  const send = async () => {
    const yes = await confirm({
      title: 'お知らせを配信します',
      confirmLabel: '配信する',
      body: (
        <p>
          「{draft.subject}
          」を、お知らせメールの受け取りを希望している会員全員に送ります。送信後の取り消しはできません（未送信分の中止はできます）。
        </p>
      ),
    });
    if (!yes) return;
    await submit.run(async () => {
      await sendAnnouncement(toRequest(draft));
      setDraft(EMPTY);
      setPreview(null);
      setNotice('配信を開始しました。進み具合は下の履歴に表示されます。');
      await refresh();
    });
  };
  return { draft, change, preview, notice, submit, dialog, showPreview, test, send };
}

function PreviewBox({ preview }: { preview: { subject: string; text: string } }) {
  return (
    <section aria-labelledby="announcement-preview" className="card">
      <h2 id="announcement-preview">プレビュー</h2>
      <p>
        <strong>件名：</strong>
        {preview.subject}
      </p>
      <pre style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{preview.text}</pre>
    </section>
  );
}

/** The draft's fields and プレビュー, テスト送信 and 配信 (members:update). */
function ComposeForm({ compose }: { compose: ReturnType<typeof useCompose> }) {
  return (
    <form
      aria-label="お知らせの作成"
      onSubmit={(e) => {
        e.preventDefault();
        void compose.send();
      }}
    >
      <ComposeFields draft={compose.draft} errors={compose.submit.errors} onChange={compose.change} />
      <FormAlert message={compose.submit.message} errors={compose.submit.errors} />
      {compose.notice ? <Notice>{compose.notice}</Notice> : null}
      <div className="actions">
        <button type="button" className="button secondary" disabled={compose.submit.busy} onClick={compose.showPreview}>
          プレビュー
        </button>
        <button type="button" className="button secondary" disabled={compose.submit.busy} onClick={compose.test}>
          自分宛てにテスト送信
        </button>
        <button type="submit" className="button primary" disabled={compose.submit.busy}>
          配信する
        </button>
      </div>
    </form>
  );
}

/** /admin/announcements: the terms revision's notice; compose, preview, test to oneself, send to every member who asked, then watch or cancel. */
export function AnnouncementsPage() {
  const { page, setPage } = usePageParam();
  const list = useAnnouncements(page);
  const compose = useCompose(list.mutate);
  const canSend = useCan()('members:update');
  const cancel = useFormSubmit();
  const { confirm, dialog } = useConfirm();
  const stop = async (a: Announcement) => {
    const yes = await confirm({
      title: '配信を中止します',
      confirmLabel: '中止する',
      body: <p>「{a.subject}」の未送信分を送らないようにします。</p>,
    });
    if (yes) await cancel.run(async () => cancelAnnouncement(a.id).then(() => list.mutate()));
  };
  return (
    <section className="card">
      <h1>お知らせ配信</h1>
      <LegalNoticePanel onSent={list.mutate} />
      <h2>ご案内メールの作成</h2>
      <p className="lead">
        新しいトレーニングやライセンスのご案内を、メールでの受け取りを希望している会員（メールアドレス確認済み）にお送りします。
      </p>
      {canSend ? (
        <ComposeForm compose={compose} />
      ) : (
        <p>お知らせの作成と配信は管理者が行います。これまでの配信の状況を表示しています。</p>
      )}
      {compose.preview ? <PreviewBox preview={compose.preview} /> : null}
      <h2>配信の履歴</h2>
      <FormAlert message={cancel.message} />
      <PagedTable
        list={pageOf(list.data, (d) => d.announcements)}
        isLoading={list.isLoading}
        loadingLabel="お知らせ配信の履歴を読み込んでいます…"
        error={list.error}
        onRetry={() => void list.mutate()}
        empty={<p>まだお知らせを配信していません。</p>}
        onPage={setPage}
      >
        {(rows) => (
          <AnnouncementTable announcements={rows} busy={cancel.busy} onCancel={canSend ? (a) => void stop(a) : undefined} />
        )}
      </PagedTable>
      {compose.dialog}
      {dialog}
    </section>
  );
}
