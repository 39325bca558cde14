import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { mutate } from 'swr';
import { FormAlert } from '../../../components/ui/form-alert';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { api } from '../../../lib/api';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { licenseDrafts, normalizePrice, toFormData } from '../api/license-draft';
import type { License } from '../api/licenses';
import { LicenseView } from '../components/license-view';

/** /admin/licenses/create/confirm and /admin/licenses/{id}/edit/confirm: exactly what members will see. */
export function AdminLicenseConfirmPage() {
  const { id } = useParams();
  const key = id ?? 'create';
  const navigate = useNavigate();
  const formPath = id ? `/admin/licenses/${id}/edit` : '/admin/licenses/create';
  const [draft] = useState(() => licenseDrafts.get(key));
  const [stale, setStale] = useState(false);
  const { busy, message, errors, run } = useFormSubmit();

  useEffect(() => {
    if (!draft) navigate(formPath, { replace: true });
  }, [draft, formPath, navigate]);
  if (!draft) return null;

  const ordered = [...draft.pictures.filter((p) => p.kind === 'stored'), ...draft.pictures.filter((p) => p.kind === 'new')];
  const save = () =>
    run(async () => {
      try {
        const res = await api<{ license: License; message: string }>(id ? `/api/licenses/${id}` : '/api/licenses/create', {
          method: 'POST',
          body: toFormData(draft),
        });
        licenseDrafts.clear(key);
        await mutate((k) => typeof k === 'string' && k.startsWith('/api/licenses'), undefined, { revalidate: true });
        navigate(`/admin/licenses/${res.license.id}`, { replace: true, state: { message: res.message } });
      } catch (error) {
        if ((error as { status?: number }).status === 409) setStale(true);
        throw error;
      }
    });

  return (
    <section className="card">
      <h1>{id ? '変更内容の確認' : '登録内容の確認'}</h1>
      <p>会員には次のように表示されます。</p>
      <FormAlert message={message} errors={errors} />
      {stale ? (
        <p>
          <button
            type="button"
            className="button"
            onClick={() => {
              licenseDrafts.clear(key);
              navigate(formPath, { replace: true });
            }}
          >
            最新の内容を読み込んで編集し直す
          </button>
        </p>
      ) : null}
      <p>
        公開設定：<strong>{draft.published ? '公開（会員に表示し、購入できる）' : '非公開（会員には表示しない）'}</strong>
      </p>
      <div className="preview">
        <LicenseView
          name={draft.name}
          price={Number(normalizePrice(draft.price))}
          description={draft.description}
          pictures={ordered.map((p, i) => ({ url: p.url, alt: `${draft.name}の画像${i + 1}` }))}
        />
      </div>
      <div className="actions">
        <button
          type="button"
          className="button"
          onClick={() => navigate(formPath, { state: { fromConfirm: true } })}
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
