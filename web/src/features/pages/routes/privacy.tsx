import { privacy } from '../../../../../src/site-settings';

/** /privacy: the privacy policy (個人情報保護法), from the site settings. */
export function PrivacyPage() {
  return (
    <article className="card prose">
      <h1>{privacy.title}</h1>
      <p>{privacy.lead}</p>
      {privacy.sections.map((section) => (
        <section key={section.title}>
          <h2>{section.title}</h2>
          {section.paragraphs.map((paragraph) => (
            <p key={paragraph}>{paragraph}</p>
          ))}
        </section>
      ))}
      <p className="small">
        制定日：{privacy.establishedAt}　改定日：{privacy.revisedAt}
      </p>
    </article>
  );
}
