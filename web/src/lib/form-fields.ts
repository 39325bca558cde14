import type { FieldErrors } from './api.ts';

/** What a text field of a form takes: its name, label, value, change handler and the 422 message for it. */
interface FieldProps {
  name: string;
  label: string;
  value: string;
  message: string | undefined;
  onInput: (value: string) => void;
}

/**
 * The one way a form wires its text fields: `field('email')` gives the label, the value, the change
 * that updates the form's values, and the first message of the answer's `errors.email`.
 */
export function formFields<F extends Record<string, string>>(
  values: F,
  onChange: (next: F) => void,
  errors: FieldErrors,
  labels: { [K in keyof F]: string },
): (name: keyof F & string) => FieldProps {
  return (name) => ({
    name,
    label: labels[name],
    value: values[name] ?? '',
    message: errors[name],
    onInput: (value: string) => onChange({ ...values, [name]: value }),
  });
}

/** The same field for a SelectField, whose change handler is `onChange`. */
export const asSelect = ({ onInput, ...field }: FieldProps) => ({ ...field, onChange: onInput });
