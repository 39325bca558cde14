import { Link } from 'react-router';
import { GUIDE_SECTIONS } from '../guide-text';

/** /guide: how to register, buy, pay, get documents, and what to do when a mail does not arrive. */
export function GuidePage() {
  return (
    <article className="card prose">
      <h1>ご利用ガイド</h1>
      <nav aria-label="ガイドの目次">
        <ul>
          {GUIDE_SECTIONS.map((section) => (
            <li key={section.id}>
              <a href={`#${section.id}`}>{section.title}</a>
            </li>
          ))}
        </ul>
      </nav>
      {GUIDE_SECTIONS.map((section) => (
        <section key={section.id} id={section.id} aria-labelledby={`${section.id}-title`}>
          <h2 id={`${section.id}-title`}>{section.title}</h2>
          {section.paragraphs.map((paragraph) => (
            <p key={paragraph}>{paragraph}</p>
          ))}
        </section>
      ))}
      <p>
        ほかにご不明な点は、<Link to="/contact">お問い合わせフォーム</Link>からご連絡ください。
      </p>
    </article>
  );
}
