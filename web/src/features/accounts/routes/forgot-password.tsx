import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { TextInput } from '../../../components/ui/text-input';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { forgotPassword } from '../api/links';

export function ForgotPasswordPage() {
  // From a used or expired reset link (?email=): the address is already known.
  const [email, setEmail] = useState(useSearchParams()[0].get('email') ?? '');
  const [sent, setSent] = useState('');
  const { busy, message, errors, run } = useFormSubmit();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => setSent((await forgotPassword({ email })).message));
  };
  return (
    <section className="card narrow">
      <h1>パスワードをお忘れの方</h1>
      {sent ? (
        <>
          <Notice>{sent}</Notice>
          <p className="small">リンクの有効期限は1時間です。</p>
        </>
      ) : (
        <>
          <p>ご登録のメールアドレスを入力してください。パスワード再設定のご案内をお送りします。</p>
          <FormAlert message={message} errors={errors} fields={['email']} />
          <form onSubmit={submit} noValidate>
            <TextInput
              label="メールアドレス"
              name="email"
              type="email"
              autoComplete="email"
              required
              value={email}
              message={errors.email}
              onInput={setEmail}
            />
            <button type="submit" className="button primary" disabled={busy}>
              再設定メールを送信する
            </button>
          </form>
        </>
      )}
      <p className="small">
        <Link to="/login">ログイン画面へ戻る</Link>
      </p>
      <LoadingOverlay show={busy} label="送信しています" />
    </section>
  );
}
