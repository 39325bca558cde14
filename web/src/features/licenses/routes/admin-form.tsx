import type { FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { useConfirm } from '../../../components/ui/use-confirm';
import { ApiError } from '../../../lib/api';
import { emptyDraft, latestDraft, licenseDrafts, toFormData } from '../api/license-draft';
import { validateLicense } from '../api/licenses';
import { DraftWaiting } from '../components/draft-waiting';
import { LicenseFormFields } from '../components/license-form-fields';
import { StaleEdit } from '../components/stale-edit';
import { useLicenseDraft } from '../hooks/use-license-draft';

const FIELDS = ['name', 'description', 'price', 'file', 'filenames', 'order'];

/** キャンセル, 入力内容を破棄 (hidden while a left draft is offered: null) and 確認画面へ進む. */
function FormActions({
  busy,
  canDiscard,
  stale,
  onCancel,
  onDiscard,
}: {
  busy: boolean;
  canDiscard: boolean | null;
  stale: boolean;
  onCancel: () => void;
  onDiscard: () => void;
}) {
  return (
    <div className="actions">
      <button type="button" className="button" onClick={onCancel}>
        キャンセル
      </button>
      {canDiscard === null ? null : (
        <button type="button" className="button secondary" onClick={onDiscard} disabled={busy || !canDiscard}>
          入力内容を破棄
        </button>
      )}
      <button type="submit" className="button primary" disabled={busy || stale}>
        確認画面へ進む
      </button>
    </div>
  );
}

/** /admin/licenses/create and /admin/licenses/{id}/edit */
export function AdminLicenseFormPage() {
  const { confirm, dialog } = useConfirm();
  const { id } = useParams();
  const navigate = useNavigate();
  const form = useLicenseDraft(id);
  const { draft, busy, run } = form;

  const discard = async () => {
    const yes = await confirm({
      title: '入力内容を破棄します',
      confirmLabel: '破棄する',
      danger: true,
      body: <p>この画面で入力した内容を破棄します。追加した画像も含め、元に戻せません。</p>,
    });
    if (!yes) return;
    void run(async () => {
      await licenseDrafts.clear(form.key);
      const fresh = id ? await latestDraft(id) : emptyDraft();
      form.show(fresh, {
        restored: false,
        notice: id ? '入力内容を破棄しました。保存されている内容を表示しています。' : '入力内容を破棄しました。',
      });
    });
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!draft) return;
    await run(async () => {
      try {
        await validateLicense(id, toFormData(draft));
      } catch (error) {
        if (error instanceof ApiError && error.status === 409) form.setStale(true);
        throw error;
      }
      await licenseDrafts.save(form.key, draft);
      navigate(id ? `/admin/licenses/${id}/edit/confirm` : '/admin/licenses/create/confirm');
    });
  };

  return (
    <section className="card">
      <h1>{id ? 'ライセンスの編集' : 'ライセンスの新規登録'}</h1>
      {form.loadError ? <LoadError error={form.loadError} onRetry={() => window.location.reload()} /> : null}
      {!draft && !form.loadError ? <Loading /> : null}
      {form.notice ? <Notice>{form.notice}</Notice> : null}
      {form.waiting ? (
        <DraftWaiting waiting={form.waiting} busy={busy} onRestore={() => void form.restore()} onDiscard={discard} />
      ) : null}
      {form.stale ? <StaleEdit busy={busy} onReload={() => void run(form.loadLatest)} /> : null}
      <FormAlert message={form.stale ? '' : form.message} errors={form.errors} fields={draft ? FIELDS : []} />
      {draft ? (
        <form onSubmit={submit} noValidate>
          <LicenseFormFields draft={draft} errors={form.errors} onChange={form.change} />
          <FormActions
            busy={busy}
            canDiscard={form.waiting ? null : form.touched || form.restored}
            stale={form.stale}
            onCancel={() => navigate(id ? `/admin/licenses/${id}` : '/admin/licenses')}
            onDiscard={discard}
          />
        </form>
      ) : null}
      {dialog}
      <LoadingOverlay show={busy} label="処理しています" />
    </section>
  );
}
