import { Link } from 'react-router';
import { terms } from '../../../../../src/site-settings';

export function TermsPage() {
  return (
    <article className="card prose">
      <h1>{terms.title}</h1>
      {terms.sections.map((section) => (
        <section key={section.title}>
          <h2>{section.title}</h2>
          <p>{section.body}</p>
          {'link' in section ? (
            <p>
              <Link to={section.link.to}>{section.link.label}</Link>
            </p>
          ) : null}
        </section>
      ))}
      <p className="small">制定日：{terms.updatedAt}</p>
    </article>
  );
}
