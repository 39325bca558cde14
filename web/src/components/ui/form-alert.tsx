import { useEffect } from 'react';
import type { FieldErrors } from '../../lib/api';
import { focusAfterFailedSubmit } from '../../lib/use-form-submit';

/**
 * The one announced summary of a failed submission: its message, plus any field error that has no
 * field on this screen (seed §8: the first message of each field is shown). Field messages are
 * shown under their fields without being alerts of their own; focus goes to the first invalid field,
 * or here when there is none.
 */
export function FormAlert({ message, errors = {}, fields = [] }: { message?: string; errors?: FieldErrors; fields?: string[] }) {
  const orphans = Object.entries(errors)
    .filter(([field]) => !fields.includes(field))
    .map(([, text]) => text)
    .filter((text) => text !== message);
  const shown = Boolean(message || orphans.length);
  useEffect(() => {
    if (shown) focusAfterFailedSubmit();
  }, [shown]);
  if (!shown) return null;
  return (
    <div className="alert" role="alert" tabIndex={-1} data-form-alert="">
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

/**
 * A neutral statement of how things are (nothing yet, no matches): not a success (Notice, green)
 * nor an error (FormAlert, red), and not announced.
 */
export function Info({ children }: { children: React.ReactNode }) {
  return <p className="info-note">{children}</p>;
}
