import type { ReactNode } from 'react';

/** A form field's frame: the label (with the required mark outside it), the control, the message. */
export function Field({
  id,
  label,
  required,
  message,
  children,
}: {
  id: string;
  label: string;
  required?: boolean;
  message?: string;
  children: ReactNode;
}) {
  return (
    <div className="field">
      <div className="field-label">
        <label htmlFor={id}>{label}</label>
        {required ? (
          <span className="required" aria-hidden="true">
            必須
          </span>
        ) : null}
      </div>
      {children}
      {message ? (
        <p id={`${id}-message`} className="field-message" role="alert">
          {message}
        </p>
      ) : null}
    </div>
  );
}
