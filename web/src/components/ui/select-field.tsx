import { useId } from 'react';
import { Field } from './field';

export interface SelectFieldProps {
  label: string;
  name: string;
  value: string;
  options: { value: string; label: string }[];
  required?: boolean;
  message?: string;
  placeholder?: string;
  onChange?: (value: string) => void;
}

export function SelectField({
  label,
  name,
  value,
  options,
  required,
  message,
  placeholder = '選択してください',
  onChange,
}: SelectFieldProps) {
  const id = useId();
  return (
    <Field id={id} label={label} required={required} message={message}>
      <select
        id={id}
        name={name}
        value={value}
        required={required}
        aria-invalid={message ? true : undefined}
        aria-describedby={message ? `${id}-message` : undefined}
        onChange={(event) => onChange?.(event.currentTarget.value)}
      >
        <option value="">{placeholder}</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </Field>
  );
}
