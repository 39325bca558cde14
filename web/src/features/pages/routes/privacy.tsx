import { Link } from 'react-router';
import { privacy } from '../../../../../src/legal-texts';

/** /privacy: the privacy policy (個人情報保護法). */
export function PrivacyPage() {
  return (
    <article className="card prose">
      <h1>{privacy.title}</h1>
      <p className="notice">{privacy.revisionNote}</p>
      <p>{privacy.lead}</p>
      {privacy.sections.map((section) => (
        <section key={section.title}>
          <h2>{section.title}</h2>
          {section.paragraphs.map((paragraph) => (
            <p key={paragraph}>{paragraph}</p>
          ))}
          {section.link ? (
            <p>
              {section.link.to.startsWith('https://') ? (
                <a href={section.link.to} rel="noopener noreferrer" target="_blank">
                  {section.link.label}（外部サイト）
                </a>
              ) : (
                <Link to={section.link.to}>{section.link.label}</Link>
              )}
            </p>
          ) : null}
        </section>
      ))}
      <p className="small">
        制定日：{privacy.establishedAt}　改定日：{privacy.revisedAt}　施行日：{privacy.effectiveAt}
      </p>
    </article>
  );
}
