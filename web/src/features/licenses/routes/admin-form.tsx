import { type FormEvent, useEffect, useState } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router';
import { CheckboxField } from '../../../components/ui/checkbox-field';
import { FormAlert } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { TextInput } from '../../../components/ui/text-input';
import { api } from '../../../lib/api';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { emptyDraft, type LicenseDraft, licenseDrafts, toFormData } from '../api/license-draft';
import { type License, useLicense } from '../api/licenses';
import { PictureEditor } from '../components/picture-editor';

const FIELDS = ['name', 'description', 'price', 'file', 'filenames'];

function draftOf(license: License): LicenseDraft {
  return {
    id: license.id,
    updatedAt: license.updated_at,
    name: license.name,
    description: license.description,
    price: String(license.price),
    published: license.published,
    pictures: license.pictures.map((p) => ({
      kind: 'stored',
      filename: p.filename,
      url: p.url,
      name: p.original_name ?? p.filename,
    })),
  };
}

/** /admin/licenses/create and /admin/licenses/{id}/edit */
export function AdminLicenseFormPage() {
  const { id } = useParams();
  const key = id ?? 'create';
  const navigate = useNavigate();
  const fromConfirm = Boolean((useLocation().state as { fromConfirm?: boolean } | null)?.fromConfirm);
  const { data, error, mutate } = useLicense(id);
  const [draft, setDraft] = useState<LicenseDraft | null>(() => {
    // Seed §2: entering the form from anywhere but its confirm screen starts afresh.
    if (fromConfirm && licenseDrafts.get(key)) return licenseDrafts.get(key);
    licenseDrafts.clear(key);
    return id ? null : emptyDraft();
  });
  const { busy, message, errors, run } = useFormSubmit();

  useEffect(() => {
    if (!draft && data) setDraft(draftOf(data.license));
  }, [data, draft]);

  const set = (field: 'name' | 'description' | 'price') => (value: string) => draft && setDraft({ ...draft, [field]: value });
  const fileErrors = Object.entries(errors)
    .filter(([field]) => field === 'file' || field.startsWith('file.') || field === 'filenames')
    .map(([, text]) => text);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!draft) return;
    await run(async () => {
      await api(id ? `/api/licenses/${id}/validate` : '/api/licenses/create/validate', {
        method: 'POST',
        body: toFormData(draft),
      });
      licenseDrafts.set(key, draft);
      navigate(id ? `/admin/licenses/${id}/edit/confirm` : '/admin/licenses/create/confirm');
    });
  };

  return (
    <section className="card">
      <h1>{id ? 'ライセンスの編集' : 'ライセンスの新規登録'}</h1>
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {!draft && !error ? <Loading /> : null}
      {draft ? (
        <>
          <FormAlert message={message} errors={errors} fields={FIELDS} />
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
                onChange={(e) => set('description')(e.currentTarget.value)}
              />
              {errors.description ? (
                <p className="field-message" role="alert">
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
              onChange={(published) => setDraft({ ...draft, published })}
            />
            <PictureEditor
              pictures={draft.pictures}
              message={fileErrors.join(' ')}
              onChange={(pictures) => setDraft({ ...draft, pictures })}
            />
            <div className="actions">
              <button type="button" className="button" onClick={() => navigate(id ? `/admin/licenses/${id}` : '/admin/licenses')}>
                キャンセル
              </button>
              <button type="submit" className="button primary" disabled={busy}>
                確認画面へ進む
              </button>
            </div>
          </form>
        </>
      ) : null}
      <LoadingOverlay show={busy} label="入力内容を確認しています" />
    </section>
  );
}
