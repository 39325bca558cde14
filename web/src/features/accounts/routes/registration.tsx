import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { PasswordPair } from '../../../components/password-pair';
import { FormAlert } from '../../../components/ui/form-alert';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { registrationDraft } from '../api/drafts';
import { emptyProfile, type PasswordValues, type ProfileValues, profilePayload, validateProfile } from '../api/profile';
import { PROFILE_FIELDS, ProfileFields } from '../components/profile-fields';

export function RegistrationPage() {
  const navigate = useNavigate();
  const draft = registrationDraft.get();
  const [values, setValues] = useState<ProfileValues>(draft ?? emptyProfile);
  const [passwords, setPasswords] = useState<PasswordValues>({
    password: draft?.password ?? '',
    password_confirmation: draft?.password_confirmation ?? '',
  });
  const { busy, message, errors, run } = useFormSubmit();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      const checked = await validateProfile(
        '/api/users/registration/validate',
        { ...profilePayload(values), ...passwords },
        values,
        { requireKana: true },
      );
      registrationDraft.set({ ...checked, ...passwords });
      navigate('/users/registration/confirm');
    });
  };

  return (
    <section className="card">
      <h1>新規会員登録</h1>
      <p>ご所属の情報を入力してください。確認画面で内容をご確認のうえ登録します。</p>
      <FormAlert message={message} errors={errors} fields={[...PROFILE_FIELDS, 'password', 'password_confirmation']} />
      <form onSubmit={submit} noValidate>
        <ProfileFields values={values} errors={errors} onChange={setValues} />
        <PasswordPair
          label="パスワード"
          names={['password', 'password_confirmation']}
          values={{ ...passwords }}
          errors={errors}
          onChange={(next) => setPasswords({ ...passwords, ...next })}
          strength={{
            owner: {
              email: values.email,
              lastName: values.last_name,
              firstName: values.first_name,
              lastNameKana: values.last_name_kana,
              firstNameKana: values.first_name_kana,
            },
          }}
        />
        <p className="small">
          登録すると<Link to="/terms">利用規約</Link>に同意したものとみなされます。個人情報の取扱いは
          <Link to="/privacy">プライバシーポリシー</Link>をご覧ください。
        </p>
        <div className="actions">
          <button type="submit" className="button primary" disabled={busy}>
            確認画面へ進む
          </button>
        </div>
      </form>
      <p className="small">
        すでに会員の方は<Link to="/login">ログイン</Link>してください。
      </p>
      <LoadingOverlay show={busy} label="入力内容を確認しています" />
    </section>
  );
}
