import { Link, useLocation } from 'react-router';

export function RegistrationCompletePage() {
  const email = (useLocation().state as { email?: string } | null)?.email;
  return (
    <section className="card narrow">
      <h1>確認メールを送信しました</h1>
      <p>{email ? `${email} 宛に` : 'ご登録のメールアドレス宛に'}確認メールを送信しました。</p>
      <p>メールに記載のリンクを24時間以内に開いて、登録を完了してください。確認が済むとログインできるようになります。</p>
      <p className="small">メールが届かない場合は、迷惑メールフォルダをご確認ください。</p>
      <p>
        <Link to="/login" className="button primary">
          ログイン画面へ
        </Link>
      </p>
    </section>
  );
}
