import { Link } from 'react-router';
import { terms } from '../../../../../src/legal-texts';

export function TermsPage() {
  return (
    <article className="card prose">
      <h1>{terms.title}</h1>
      <p className="notice">{terms.revisionNote}</p>
      {terms.sections.map((section) => (
        <section key={section.title} aria-labelledby={section.title}>
          <h2 id={section.title}>{section.title}</h2>
          <p>{section.body}</p>
          {section.items ? (
            <ol>
              {section.items.map((item) => (
                <li key={item}>{item}</li>
              ))}
            </ol>
          ) : null}
          {section.after ? <p>{section.after}</p> : null}
          {section.link ? (
            <p>
              <Link to={section.link.to}>{section.link.label}</Link>
            </p>
          ) : null}
        </section>
      ))}
      <p className="small">
        制定日：{terms.establishedAt}　改定日：{terms.revisedAt}　施行日：{terms.effectiveAt}
      </p>
    </article>
  );
}
