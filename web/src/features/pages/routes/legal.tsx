import { legal } from '../../../../../src/site-settings';

/** /specified_commercial_transactions_law */
export function LegalNoticePage() {
  return (
    <article className="card">
      <h1>{legal.title}</h1>
      <dl className="summary">
        {legal.items.map((item) => (
          <div key={item.term} className="summary-row">
            <dt>{item.term}</dt>
            <dd>{item.detail}</dd>
          </div>
        ))}
      </dl>
    </article>
  );
}
