import type { AuditChange } from '../api/audit-logs';

/** Past this many characters a value (a licence description) is folded, its whole text a click away. */
const SHORT = 80;

function Value({ text }: { text: string | null }) {
  if (text === null) return <span className="audit-none">（なし）</span>;
  if ([...text].length <= SHORT) return <span className="audit-value">{text}</span>;
  return (
    <details className="audit-long">
      <summary>{`${[...text].slice(0, SHORT).join('')}…`}</summary>
      <span className="audit-value">{text}</span>
    </details>
  );
}

/** A creation, a deletion or an event (a sign-in): what it held, 「項目: 値」, not a change from nothing. */
function RecordList({ changes }: { changes: AuditChange[] }) {
  return (
    <ul className="audit-changes">
      {changes.map((change) => (
        <li key={change.field}>
          <span className="audit-field">{change.label}</span>
          <Value text={change.after ?? change.before} />
        </li>
      ))}
    </ul>
  );
}

/** An entry's changed fields: 「名: 花子 → 春子」, one per line. */
export function ChangeList({ changes }: { changes: AuditChange[] }) {
  if (changes.length === 0) return <span className="audit-none">—</span>;
  if (changes.every((c) => c.before === null) || changes.every((c) => c.after === null)) return <RecordList changes={changes} />;
  return (
    <ul className="audit-changes">
      {changes.map((change) => (
        <li key={change.field}>
          <span className="audit-field">{change.label}</span>
          <span className="audit-diff">
            <span className="visually-hidden">変更前：</span>
            <Value text={change.before} />
            <span className="audit-arrow" aria-hidden="true">
              →
            </span>
            <span className="visually-hidden">変更後：</span>
            <Value text={change.after} />
          </span>
        </li>
      ))}
    </ul>
  );
}
