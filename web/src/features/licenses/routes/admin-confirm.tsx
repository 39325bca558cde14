import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { mutate } from 'swr';
import { FormAlert } from '../../../components/ui/form-alert';
import { Loading } from '../../../components/ui/load-state';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { ApiError } from '../../../lib/api';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { type LicenseDraft, type LicenseFormState, licenseDrafts, normalizePrice, toFormData } from '../api/license-draft';
import { saveLicense } from '../api/licenses';
import { LicenseView } from '../components/license-view';
import { StaleEdit } from '../components/stale-edit';

/** 公開設定 and the licence as members will see it. */
function DraftPreview({ draft }: { draft: LicenseDraft }) {
  return (
    <>
      <p>
        公開設定：<strong>{draft.published ? '公開（会員に表示し、購入できる）' : '非公開（会員には表示しない）'}</strong>
      </p>
      <p>
        定員：<strong>{draft.capacity ? `${draft.capacity}席` : '定員なし'}</strong>
      </p>
      <p>
        販売期間（日本時間）：
        <strong>
          {draft.saleStartsAt ? draft.saleStartsAt.replace('T', ' ') : '指定なし'} 〜{' '}
          {draft.saleEndsAt ? draft.saleEndsAt.replace('T', ' ') : '指定なし'}
        </strong>
      </p>
      <div className="preview">
        <LicenseView
          name={draft.name}
          price={Number(normalizePrice(draft.price))}
          description={draft.description}
          pictures={draft.pictures.map((p, i) => ({ url: p.url, alt: `${draft.name}の画像${i + 1}` }))}
        />
      </div>
    </>
  );
}

/** /admin/licenses/create/confirm and /admin/licenses/{id}/edit/confirm: exactly what members will see. */
export function AdminLicenseConfirmPage() {
  const { id } = useParams();
  const key = id ?? 'create';
  const navigate = useNavigate();
  const formPath = id ? `/admin/licenses/${id}/edit` : '/admin/licenses/create';
  // undefined while a reloaded page reads the draft back from the browser's storage.
  const [draft, setDraft] = useState<LicenseDraft | null | undefined>(undefined);
  const [stale, setStale] = useState(false);
  const { busy, message, errors, run } = useFormSubmit();

  useEffect(() => {
    let live = true;
    void licenseDrafts.load(key).then((kept) => {
      if (!live) return;
      if (kept) setDraft(kept);
      else navigate(formPath, { replace: true });
    });
    return () => {
      live = false;
    };
  }, [key, formPath, navigate]);
  if (draft === undefined) return <Loading />;
  if (!draft) return null;

  const save = () =>
    run(async () => {
      try {
        const res = await saveLicense(id, toFormData(draft));
        await mutate((k) => typeof k === 'string' && k.startsWith('/api/licenses'), undefined, { revalidate: true });
        navigate(`/admin/licenses/${res.license.id}`, { replace: true, state: { message: res.message } });
        // Saved: the draft has served (after leaving, so the preview never shows a revoked picture).
        void licenseDrafts.clear(key);
      } catch (error) {
        if (error instanceof ApiError && error.status === 409) setStale(true);
        throw error;
      }
    });

  return (
    <section className="card">
      <h1>{id ? '変更内容の確認' : '登録内容の確認'}</h1>
      <p>会員には次のように表示されます。</p>
      {stale ? (
        <StaleEdit
          busy={busy}
          onReload={() => navigate(formPath, { replace: true, state: { reloadLatest: true } satisfies LicenseFormState })}
        />
      ) : (
        <FormAlert message={message} errors={errors} />
      )}
      <DraftPreview draft={draft} />
      <div className="actions">
        <button
          type="button"
          className="button"
          onClick={() => navigate(formPath, { state: { fromConfirm: true } satisfies LicenseFormState })}
          disabled={busy}
        >
          入力画面に戻る
        </button>
        <button type="button" className="button primary" onClick={() => void save()} disabled={busy || stale}>
          {id ? '更新する' : '登録する'}
        </button>
      </div>
      <LoadingOverlay show={busy} label="保存しています" />
    </section>
  );
}
