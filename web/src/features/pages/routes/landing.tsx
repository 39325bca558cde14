import { Link } from 'react-router';
import { landing } from '../../../../../src/site-settings';

/** /ctoms: the landing page. */
export function LandingPage() {
  return (
    <section className="card hero">
      <h1>{landing.title}</h1>
      <p className="lead">{landing.lead}</p>
      <ul>
        {landing.points.map((point) => (
          <li key={point}>{point}</li>
        ))}
      </ul>
      <div className="actions">
        <Link to="/users/registration" className="button primary">
          新規会員登録
        </Link>
        <Link to="/login" className="button">
          ログイン
        </Link>
      </div>
      <p className="small">
        <Link to="/terms">利用規約</Link>
      </p>
    </section>
  );
}
