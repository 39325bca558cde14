import { type ReactNode, useEffect } from 'react';
import { focusAfterFailedSubmit } from '../../lib/use-form-submit';

/**
 * A form field's frame: the label (with the required mark outside it), the control, the message.
 * The message is tied to the control (aria-describedby) and is not an alert of its own: the form's
 * one summary (FormAlert) is announced, and focus moves to the first invalid field.
 */
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
  useEffect(() => {
    if (message) focusAfterFailedSubmit();
  }, [message]);
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
        <p id={`${id}-message`} className="field-message">
          {message}
        </p>
      ) : null}
    </div>
  );
}
