import { type FormEvent, useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { mutate } from 'swr';
import { FormAlert } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { api } from '../../../lib/api';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { editDraft } from '../api/drafts';
import { type Member, type ProfileValues, profileOf, profilePayload, validateProfile } from '../api/profile';
import { useMember } from '../api/use-member';
import { PROFILE_FIELDS, ProfileFields } from '../components/profile-fields';
import { ProfileSummary } from '../components/profile-summary';

/** `base` is where the user's pages live: `/users` for members, `/admin/users` for administrators. */
export function UserEditPage({ base = '/users' }: { base?: string }) {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { data, error, mutate } = useMember(id);
  const [values, setValues] = useState<ProfileValues | null>(editDraft.get(id));
  const { busy, message, errors, run } = useFormSubmit();

  useEffect(() => {
    if (!values && data) setValues(profileOf(data.user));
  }, [data, values]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!values) return;
    await run(async () => {
      await validateProfile(`/api/users/${id}`, profilePayload(values), values);
      editDraft.set(id, values);
      navigate(`${base}/${id}/edit/confirm`);
    });
  };

  return (
    <section className="card">
      <h1>会員情報の変更</h1>
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {!values && !error ? <Loading /> : null}
      {values ? (
        <>
          <p className="small">
            {base.startsWith('/admin')
              ? 'メールアドレスを変更すると、保存した時点で変更され、新旧のメールアドレスにお知らせが届きます。'
              : 'メールアドレスを変更すると、新しいアドレスに確認メールをお送りします。確認が済むまでは今のアドレスのままです。'}
          </p>
          <FormAlert message={message} errors={errors} fields={PROFILE_FIELDS} />
          <form onSubmit={submit} noValidate>
            <ProfileFields values={values} errors={errors} onChange={setValues} />
            <div className="actions">
              <button
                type="button"
                className="button"
                onClick={() => {
                  editDraft.clear(id);
                  navigate(`${base}/${id}`);
                }}
              >
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

export function UserEditConfirmPage({ base = '/users' }: { base?: string }) {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  // Captured once: clearing the draft after saving must not send this screen back to the form.
  const [draft] = useState(() => editDraft.get(id));
  const { busy, message, errors, run } = useFormSubmit();

  useEffect(() => {
    if (!draft) navigate(`${base}/${id}/edit`, { replace: true });
  }, [draft, id, navigate, base]);
  if (!draft) return null;

  const save = () =>
    run(async () => {
      const res = await api<{ message: string; user: Member }>(`/api/users/${id}`, {
        method: 'PUT',
        body: profilePayload(draft),
      });
      editDraft.clear(id);
      await mutate(`/api/users/${id}`, { user: res.user }, { revalidate: false });
      navigate(`${base}/${id}`, { replace: true, state: { message: res.message } });
    });

  return (
    <section className="card">
      <h1>変更内容の確認</h1>
      <p>以下の内容で保存します。</p>
      <FormAlert message={message} errors={errors} />
      <ProfileSummary values={draft} />
      <div className="actions">
        <button type="button" className="button" onClick={() => navigate(`${base}/${id}/edit`)} disabled={busy}>
          入力画面に戻る
        </button>
        <button type="button" className="button primary" onClick={() => void save()} disabled={busy}>
          保存する
        </button>
      </div>
      <LoadingOverlay show={busy} label="保存しています" />
    </section>
  );
}
