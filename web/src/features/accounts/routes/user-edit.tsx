import { type FormEvent, useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { mutate } from 'swr';
import { FormAlert } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { TextInput } from '../../../components/ui/text-input';
import { type Answer, api, type FieldErrors } from '../../../lib/api';
import { fetchCurrentUser, useAuth } from '../../../lib/auth-store';
import { formFields } from '../../../lib/form-fields';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { type EditDraft, editDraft } from '../api/drafts';
import { type Member, profileOf, profilePayload, validateProfile } from '../api/profile';
import { useMember } from '../api/use-member';
import { PROFILE_FIELDS, ProfileFields } from '../components/profile-fields';
import { ProfileSummary } from '../components/profile-summary';
import { ReloadLatest } from '../components/reload-latest';

/** What the edit calls send: the profile and the version it was loaded from (409 when it is no longer current). */
const editPayload = (draft: EditDraft) => ({ ...profilePayload(draft.values), updated_at: draft.updatedAt });

const draftOf = (member: Member): EditDraft => ({ values: profileOf(member), updatedAt: member.updated_at });

/** Runs `work`; a 409 (someone saved first) also sets `stale`, and the error still reaches the form's message. */
async function watchingForConflict(work: () => Promise<void>, setStale: (stale: boolean) => void) {
  try {
    await work();
  } catch (error) {
    if ((error as { status?: number }).status === 409) setStale(true);
    throw error;
  }
}

/** `base` is where the user's pages live: `/users` for members, `/admin/users` for administrators. */
export function UserEditPage({ base = '/users' }: { base?: string }) {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { data, error, mutate: reload } = useMember(id);
  const [draft, setDraft] = useState<EditDraft | null>(editDraft.get(id));
  const [stale, setStale] = useState(false);
  const { busy, message, errors, run } = useFormSubmit();
  // The member's own form asks for フリガナ; an administrator may not know it.
  const byAdmin = base.startsWith('/admin');

  useEffect(() => {
    if (!draft && data) setDraft(draftOf(data.user));
  }, [data, draft]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!draft) return;
    await run(() =>
      watchingForConflict(async () => {
        const values = await validateProfile(`/api/users/${id}`, editPayload(draft), draft.values, { requireKana: !byAdmin });
        editDraft.set(id, { ...draft, values });
        navigate(`${base}/${id}/edit/confirm`);
      }, setStale),
    );
  };

  // The newer version replaces what was typed: the form starts again from what is saved now.
  const loadLatest = () =>
    run(async () => {
      editDraft.clear(id);
      const latest = await reload();
      if (latest) setDraft(draftOf(latest.user));
      setStale(false);
    });

  return (
    <section className="card">
      <h1>{base.startsWith('/admin') ? 'ユーザー情報の編集' : '会員情報の変更'}</h1>
      {error ? <LoadError error={error} onRetry={() => void reload()} /> : null}
      {!draft && !error ? <Loading /> : null}
      {draft ? (
        <>
          <p className="small">
            {base.startsWith('/admin')
              ? 'メールアドレスを変更すると、保存した時点で変更され、新旧のメールアドレスにお知らせが届きます。'
              : 'メールアドレスを変更すると、新しいアドレスに確認メールをお送りします。確認が済むまでは今のアドレスのままです。'}
          </p>
          <FormAlert message={message} errors={errors} fields={PROFILE_FIELDS} />
          {stale ? <ReloadLatest busy={busy} onReload={() => void loadLatest()} /> : null}
          <form onSubmit={submit} noValidate>
            <ProfileFields
              values={draft.values}
              errors={errors}
              kanaRequired={!byAdmin}
              onChange={(values) => setDraft({ ...draft, values })}
            />
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
              <button type="submit" className="button primary" disabled={busy || stale}>
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

/** Saves the edit; the cached user follows, and the signed-in header too for one's own edit. Gives the answer's message. */
async function saveEdit(id: string, body: object, ownAccount: boolean): Promise<string> {
  const res = await api<{ message: string; user: Member }>(`/api/users/${id}`, { method: 'PUT', body });
  editDraft.clear(id);
  await mutate(`/api/users/${id}`, { user: res.user }, { revalidate: false });
  // The header greets the signed-in user by name: their own edit refreshes that cache too.
  if (ownAccount) await fetchCurrentUser().catch(() => null);
  return res.message;
}

type Reauth = { current_password: string; code: string };

const REAUTH_LABELS = { current_password: '現在のパスワード', code: '確認コード（認証アプリの6桁）' };

/** The current password (and, with two-factor on, a code) that moving one's own account to another address asks for. */
function EmailChangeReauth({
  values,
  errors,
  asksCode,
  onChange,
}: {
  values: Reauth;
  errors: FieldErrors;
  asksCode: boolean;
  onChange: (values: Reauth) => void;
}) {
  const field = formFields(values, onChange, errors, REAUTH_LABELS);
  return (
    <>
      <p className="small">メールアドレスを変更するため、現在のパスワードを入力してください。</p>
      <TextInput {...field('current_password')} type="password" autoComplete="current-password" required />
      {asksCode ? <TextInput {...field('code')} autoComplete="one-time-code" required /> : null}
    </>
  );
}

export function UserEditConfirmPage({ base = '/users' }: { base?: string }) {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  // Captured once: clearing the draft after saving must not send this screen back to the form.
  const [draft] = useState(() => editDraft.get(id));
  const [stale, setStale] = useState(false);
  const [reauth, setReauth] = useState<Reauth>({ current_password: '', code: '' });
  const { busy, message, errors, run } = useFormSubmit();
  // Moving one's own account to another address (administrators' too) is confirmed with the password.
  const me = useAuth().users[0];
  const asksPassword = Boolean(draft && me && me.id === id && draft.values.email !== me.email);
  // …and with a code from the authenticator app when two-factor is on.
  const asksCode = asksPassword && Boolean(me?.two_factor_enabled);

  useEffect(() => {
    if (!draft) navigate(`${base}/${id}/edit`, { replace: true });
  }, [draft, id, navigate, base]);
  if (!draft) return null;

  const save = () =>
    run(() =>
      watchingForConflict(async () => {
        const body = asksPassword
          ? { ...editPayload(draft), current_password: reauth.current_password, ...(asksCode ? { code: reauth.code } : {}) }
          : editPayload(draft);
        const saved = await saveEdit(id, body, me?.id === id);
        navigate(`${base}/${id}`, { replace: true, state: { message: saved } });
      }, setStale),
    );

  // Back to the form, filled with what is saved now (this draft was made from an older version).
  const loadLatest = () =>
    run(async () => {
      await mutate(`/api/users/${id}`, api<Answer<'/api/users/{id}'>>(`/api/users/${id}`), { revalidate: false });
      editDraft.clear(id);
      navigate(`${base}/${id}/edit`, { replace: true });
    });

  return (
    <section className="card">
      <h1>変更内容の確認</h1>
      <p>以下の内容で保存します。</p>
      <FormAlert
        message={message}
        errors={errors}
        fields={asksPassword ? ['current_password', ...(asksCode ? ['code'] : [])] : []}
      />
      {stale ? <ReloadLatest busy={busy} onReload={() => void loadLatest()} /> : null}
      <ProfileSummary values={draft.values} />
      {asksPassword ? <EmailChangeReauth values={reauth} errors={errors} asksCode={asksCode} onChange={setReauth} /> : null}
      <div className="actions">
        <button type="button" className="button" onClick={() => navigate(`${base}/${id}/edit`)} disabled={busy}>
          入力画面に戻る
        </button>
        <button type="button" className="button primary" onClick={() => void save()} disabled={busy || stale}>
          保存する
        </button>
      </div>
      <LoadingOverlay show={busy} label="保存しています" />
    </section>
  );
}
