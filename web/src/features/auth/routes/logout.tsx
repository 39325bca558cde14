import { Link } from 'react-router';

export function LogoutPage() {
  return (
    <section className="card narrow">
      <h1>ログアウトしました</h1>
      <p>ご利用ありがとうございました。</p>
      <p>
        <Link to="/login" className="button primary">
          ログイン画面へ
        </Link>
      </p>
    </section>
  );
}
