import type { FieldErrors } from '../../lib/api';

/**
 * The message of a failed submission, plus any field error that has no field on this screen
 * (seed §8: the first message of each field is shown).
 */
export function FormAlert({ message, errors = {}, fields = [] }: { message?: string; errors?: FieldErrors; fields?: string[] }) {
  const orphans = Object.entries(errors)
    .filter(([field]) => !fields.includes(field))
    .map(([, text]) => text)
    .filter((text) => text !== message);
  if (!message && orphans.length === 0) return null;
  return (
    <div className="alert" role="alert">
      {message ? <p>{message}</p> : null}
      {orphans.map((text) => (
        <p key={text}>{text}</p>
      ))}
    </div>
  );
}

export function Notice({ children }: { children: React.ReactNode }) {
  return (
    <div className="notice" role="status">
      {children}
    </div>
  );
}
