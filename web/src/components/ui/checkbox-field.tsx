import { useId } from 'react';

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
  return (
    <div className="field checkbox-field">
      <input
        id={id}
        type="checkbox"
        name={name}
        checked={checked}
        onChange={(event) => onChange?.(event.currentTarget.checked)}
      />
      <label htmlFor={id}>{label}</label>
      {message ? (
        <p className="field-message" role="alert">
          {message}
        </p>
      ) : null}
    </div>
  );
}
