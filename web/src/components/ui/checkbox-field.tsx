import { useEffect, useId } from 'react';
import { focusAfterFailedSubmit } from '../../lib/use-form-submit';

export function CheckboxField({
  label,
  name,
  checked,
  message,
  onChange,
}: {
  label: string;
  name: string;
  checked: boolean;
  message?: string;
  onChange?: (checked: boolean) => void;
}) {
  const id = useId();
  useEffect(() => {
    if (message) focusAfterFailedSubmit();
  }, [message]);
  return (
    <div className="field checkbox-field">
      <input
        id={id}
        type="checkbox"
        name={name}
        checked={checked}
        aria-invalid={message ? true : undefined}
        aria-describedby={message ? `${id}-message` : undefined}
        onChange={(event) => onChange?.(event.currentTarget.checked)}
      />
      <label htmlFor={id}>{label}</label>
      {message ? (
        <p id={`${id}-message`} className="field-message">
          {message}
        </p>
      ) : null}
    </div>
  );
}
