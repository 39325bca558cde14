import { type FormEvent, useEffect, useState } from 'react';
import { type NavigationType, useLocation, useNavigate, useNavigationType, useParams } from 'react-router';
import { CheckboxField } from '../../../components/ui/checkbox-field';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { TextInput } from '../../../components/ui/text-input';
import { useConfirm } from '../../../components/ui/use-confirm';
import { ApiError, api } from '../../../lib/api';
import { poppedSinceLoad } from '../../../lib/history-pop';
import { formatDateTime } from '../../../lib/japan-time';
import { useFormSubmit } from '../../../lib/use-form-submit';
import {
  emptyDraft,
  type LicenseDraft,
  type LicenseFormState,
  latestDraft,
  licenseDrafts,
  toFormData,
} from '../api/license-draft';
import { PictureEditor } from '../components/picture-editor';
import { StaleEdit } from '../components/stale-edit';

const FIELDS = ['name', 'description', 'price', 'file', 'filenames', 'order'];

// A 'POP' without a popstate since the load is the page load itself; how the page was loaded then
// tells a reload from a typed address or a link from outside (lib/history-pop.ts listens from start-up).
const loadType = () => (performance.getEntriesByType?.('navigation')[0] as PerformanceNavigationTiming | undefined)?.type;

/**
 * Seed §2: entering the form from anywhere but its confirm screen starts afresh. Browser Back/Forward
 * and a reload do not enter it: they return to the same page, so the draft comes back with them.
 */
function returnsToDraft(type: NavigationType, state: LicenseFormState | null): boolean {
  if (state?.fromConfirm) return true;
  if (type !== 'POP') return false;
  const load = loadType();
  return poppedSinceLoad() || load === 'reload' || load === 'back_forward';
}

/** /admin/licenses/create and /admin/licenses/{id}/edit */
export function AdminLicenseFormPage() {
  const { confirm, dialog } = useConfirm();
  const { id } = useParams();
  const key = id ?? 'create';
  const navigate = useNavigate();
  const location = useLocation();
  const navigationType = useNavigationType();
  const state = location.state as LicenseFormState | null;
  const [resume] = useState(() => returnsToDraft(navigationType, state));
  const [draft, setDraft] = useState<LicenseDraft | null>(null);
  /** Changed on this screen: from then on every change is kept as the draft. */
  const [touched, setTouched] = useState(false);
  /** Showing a draft kept from before (Back, reload, 復元). */
  const [restored, setRestored] = useState(false);
  /** A draft left from an earlier visit, while this visit started afresh. */
  const [waiting, setWaiting] = useState<{ savedAt: number; pictureCount: number } | null>(null);
  const [notice, setNotice] = useState('');
  const [stale, setStale] = useState(false);
  const [loadError, setLoadError] = useState<unknown>(null);
  const { busy, message, errors, run } = useFormSubmit();

  const show = (next: LicenseDraft, how: { restored: boolean; notice?: string }) => {
    setDraft(next);
    setTouched(false);
    setRestored(how.restored);
    setWaiting(null);
    setStale(false);
    setNotice(how.notice ?? '');
  };

  /** A kept edit draft may have been overtaken while it waited: say so before the administrator goes on. */
  const checkStillCurrent = async (kept: LicenseDraft) => {
    if (!id || !kept.updatedAt) return;
    try {
      const { license } = await api<{ license: { updated_at: string } }>(`/api/licenses/${id}`);
      if (license.updated_at !== kept.updatedAt) setStale(true);
    } catch {
      // Saving will tell (404, 409); nothing to add here.
    }
  };

  const loadLatest = async () => {
    if (!id) return;
    const fresh = await latestDraft(id);
    await licenseDrafts.clear(key);
    show(fresh, {
      restored: false,
      notice: `最新の内容（${formatDateTime(fresh.updatedAt ?? '')} 更新）を読み込みました。この画面で入力していた変更（追加した画像を含む）は保存されておらず、破棄しました。必要な変更をもう一度行ってから、確認画面へ進んでください。`,
    });
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per visit of the form
  useEffect(() => {
    let live = true;
    const start = async () => {
      if (state?.reloadLatest) {
        await run(loadLatest);
        // A reload of this page from now on returns to the draft, not to another "load the latest".
        navigate(location.pathname, { replace: true, state: { fromConfirm: true } satisfies LicenseFormState });
        return;
      }
      const kept = resume ? await licenseDrafts.load(key) : null;
      if (kept) {
        if (!live) return;
        show(kept, {
          restored: true,
          notice: state?.fromConfirm
            ? ''
            : '保存していない入力内容を表示しています。不要な場合は「入力内容を破棄」を押してください。',
        });
        void checkStillCurrent(kept);
        return;
      }
      const fresh = id ? await latestDraft(id) : emptyDraft();
      const left = resume ? null : await licenseDrafts.peek(key);
      if (!live) return;
      show(fresh, { restored: false });
      setWaiting(left);
    };
    start().catch((error: unknown) => {
      if (live) setLoadError(error);
    });
    return () => {
      live = false;
    };
  }, []);

  // Every change is kept at once (pictures included), so Back and reload find it.
  useEffect(() => {
    if (draft && touched) void licenseDrafts.save(key, draft);
  }, [draft, touched, key]);

  const change = (next: LicenseDraft) => {
    setDraft(next);
    setTouched(true);
    // Starting afresh replaces the draft left from before (the offer said so).
    setWaiting(null);
  };
  const set = (field: 'name' | 'description' | 'price') => (value: string) => draft && change({ ...draft, [field]: value });
  const fileErrors = Object.entries(errors)
    .filter(([field]) => field === 'file' || field.startsWith('file.') || field === 'filenames' || field === 'order')
    .map(([, text]) => text);

  const restore = () =>
    run(async () => {
      const kept = await licenseDrafts.load(key);
      if (!kept) {
        setWaiting(null);
        throw new ApiError(0, '保存していた入力内容が見つかりませんでした。');
      }
      show(kept, { restored: true, notice: '保存していなかった入力内容を復元しました。' });
      void checkStillCurrent(kept);
    });

  const discard = async () => {
    const yes = await confirm({
      title: '入力内容を破棄します',
      confirmLabel: '破棄する',
      danger: true,
      body: <p>この画面で入力した内容を破棄します。追加した画像も含め、元に戻せません。</p>,
    });
    if (!yes) return;
    void run(async () => {
      await licenseDrafts.clear(key);
      const fresh = id ? await latestDraft(id) : emptyDraft();
      show(fresh, {
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
        await api(id ? `/api/licenses/${id}/validate` : '/api/licenses/create/validate', {
          method: 'POST',
          body: toFormData(draft),
        });
      } catch (error) {
        if (error instanceof ApiError && error.status === 409) setStale(true);
        throw error;
      }
      await licenseDrafts.save(key, draft);
      navigate(id ? `/admin/licenses/${id}/edit/confirm` : '/admin/licenses/create/confirm');
    });
  };

  return (
    <section className="card">
      <h1>{id ? 'ライセンスの編集' : 'ライセンスの新規登録'}</h1>
      {loadError ? <LoadError error={loadError} onRetry={() => window.location.reload()} /> : null}
      {!draft && !loadError ? <Loading /> : null}
      {notice ? <Notice>{notice}</Notice> : null}
      {waiting ? (
        <div className="notice" role="status">
          <p>
            保存していない入力内容があります（{formatDateTime(new Date(waiting.savedAt).toISOString())}まで入力、画像
            {waiting.pictureCount}枚）。復元せずに入力を始めると、その内容は破棄されます。
          </p>
          <div className="actions">
            <button type="button" className="button primary" onClick={() => void restore()} disabled={busy}>
              入力内容を復元する
            </button>
            <button type="button" className="button secondary" onClick={discard} disabled={busy}>
              入力内容を破棄
            </button>
          </div>
        </div>
      ) : null}
      {stale ? <StaleEdit busy={busy} onReload={() => void run(loadLatest)} /> : null}
      <FormAlert message={stale ? '' : message} errors={errors} fields={draft ? FIELDS : []} />
      {draft ? (
        <form onSubmit={submit} noValidate>
          <TextInput
            label="ライセンス名（100文字まで）"
            name="name"
            required
            value={draft.name}
            message={errors.name}
            onInput={set('name')}
          />
          <div className="field">
            <div className="field-label">
              <label htmlFor="description">説明（5,000文字まで）</label>
            </div>
            <textarea
              id="description"
              name="description"
              rows={8}
              value={draft.description}
              aria-invalid={errors.description ? true : undefined}
              aria-describedby={errors.description ? 'description-message' : undefined}
              onChange={(e) => set('description')(e.currentTarget.value)}
            />
            {errors.description ? (
              <p id="description-message" className="field-message">
                {errors.description}
              </p>
            ) : null}
          </div>
          <TextInput
            label="価格（円・税込、50〜9,999,999）"
            name="price"
            type="text"
            required
            value={draft.price}
            message={errors.price}
            onInput={set('price')}
          />
          <CheckboxField
            label="公開する（会員の一覧に表示し、購入できるようにする）"
            name="published"
            checked={draft.published}
            onChange={(published) => change({ ...draft, published })}
          />
          <PictureEditor
            pictures={draft.pictures}
            message={fileErrors.join(' ')}
            onChange={(pictures) => change({ ...draft, pictures })}
          />
          <div className="actions">
            <button type="button" className="button" onClick={() => navigate(id ? `/admin/licenses/${id}` : '/admin/licenses')}>
              キャンセル
            </button>
            {waiting ? null : (
              <button type="button" className="button secondary" onClick={discard} disabled={busy || !(touched || restored)}>
                入力内容を破棄
              </button>
            )}
            <button type="submit" className="button primary" disabled={busy || stale}>
              確認画面へ進む
            </button>
          </div>
        </form>
      ) : null}
      {dialog}
      <LoadingOverlay show={busy} label="処理しています" />
    </section>
  );
}
