import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { FormAlert } from '../../../components/ui/form-alert';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { registrationDraft } from '../api/drafts';
import { profilePayload } from '../api/profile';
import { register } from '../api/use-member';
import { ProfileSummary } from '../components/profile-summary';

export function RegistrationConfirmPage() {
  const navigate = useNavigate();
  // Captured once: clearing the draft after submitting must not send this screen back to the form.
  const [draft] = useState(registrationDraft.get);
  const { busy, message, errors, run } = useFormSubmit();

  useEffect(() => {
    if (!draft) navigate('/users/registration', { replace: true });
  }, [draft, navigate]);
  if (!draft) return null;

  const submit = () =>
    run(async () => {
      const { password, password_confirmation, ...values } = draft;
      await register({ ...profilePayload(values), password, password_confirmation });
      registrationDraft.clear();
      navigate('/users/registration/complete', { replace: true, state: { email: values.email } });
    });

  return (
    <section className="card">
      <h1>登録内容の確認</h1>
      <p>以下の内容で登録します。よろしければ「登録する」を押してください。</p>
      <FormAlert message={message} errors={errors} />
      <ProfileSummary values={draft} />
      <div className="actions">
        <button type="button" className="button" onClick={() => navigate('/users/registration')} disabled={busy}>
          入力画面に戻る
        </button>
        <button type="button" className="button primary" onClick={() => void submit()} disabled={busy}>
          登録する
        </button>
      </div>
      <LoadingOverlay show={busy} label="登録しています" />
    </section>
  );
}
