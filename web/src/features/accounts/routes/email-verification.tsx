import { Link, useSearchParams } from 'react-router';
import { ResendVerification } from '../../../components/resend-verification';

export function EmailVerifiedPage() {
  const change = useSearchParams()[0].get('change') === '1';
  return (
    <section className="card narrow">
      <h1>{change ? 'メールアドレスを変更しました' : 'メールアドレスの確認が完了しました'}</h1>
      <p>
        {change
          ? '次回からは新しいメールアドレスでログインしてください。'
          : '会員登録が完了しました。ログインしてご利用ください。'}
      </p>
      <p>
        <Link to="/login" className="button primary">
          ログイン画面へ
        </Link>
      </p>
    </section>
  );
}

const REASONS: Record<string, string> = {
  used: 'このリンクは使用済みです。新しい確認メールをお送りした場合は、いちばん新しいメールのリンクを開いてください。',
  expired: 'このリンクの有効期限が切れています。',
  invalid: 'リンクが正しくありません。メールに記載のURLを省略せずに開いてください。',
};

const CHANGE_REASONS: Record<string, string> = {
  ...REASONS,
  taken: 'このメールアドレスは、すでに別のアカウントで使われています。',
};

export function EmailVerifyFailedPage() {
  const [params] = useSearchParams();
  const reason = params.get('reason') ?? '';
  if (params.get('change') === '1') {
    return (
      <section className="card narrow">
        <h1>メールアドレスを変更できませんでした</h1>
        <div className="alert" role="alert">
          <p>{CHANGE_REASONS[reason] ?? REASONS.expired}</p>
        </div>
        <p>お手数ですが、会員情報の変更からもう一度お手続きください。</p>
        <p>
          <Link to="/login">ログイン画面へ</Link>
        </p>
      </section>
    );
  }
  return (
    <section className="card narrow">
      <h1>メールアドレスを確認できませんでした</h1>
      <div className="alert" role="alert">
        <p>{REASONS[reason] ?? REASONS.expired}</p>
      </div>
      <p>ご登録のメールアドレスを入力すると、新しい確認メールをお送りします。</p>
      <ResendVerification />
      <p className="small">
        <Link to="/login">ログイン画面へ</Link>
      </p>
    </section>
  );
}
