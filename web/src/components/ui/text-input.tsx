import { type KeyboardEvent, useEffect, useId, useRef } from 'react';
import { Field } from './field';

export interface TextInputProps {
  label: string;
  name: string;
  value: string;
  type?: string;
  required?: boolean;
  message?: string;
  autoComplete?: string;
  placeholder?: string;
  /** Every keystroke. */
  onInput?: (value: string) => void;
  /** The committed value (the native change event: on blur after an edit). */
  onChange?: (value: string) => void;
  onEnter?: (value: string) => void;
}

/** The seed's reusable text input: input/change/Enter events, a message under the field, a required mark. */
export function TextInput({
  label,
  name,
  value,
  type = 'text',
  required,
  message,
  autoComplete,
  placeholder,
  onInput,
  onChange,
  onEnter,
}: TextInputProps) {
  const id = useId();
  const ref = useRef<HTMLInputElement>(null);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;

  useEffect(() => {
    const input = ref.current;
    if (!input) return;
    const listener = () => onChangeRef.current?.(input.value);
    input.addEventListener('change', listener);
    return () => input.removeEventListener('change', listener);
  }, []);

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' && !event.nativeEvent.isComposing) onEnter?.(event.currentTarget.value);
  };

  return (
    <Field id={id} label={label} required={required} message={message}>
      <input
        ref={ref}
        id={id}
        name={name}
        type={type}
        value={value}
        required={required}
        autoComplete={autoComplete}
        placeholder={placeholder}
        aria-invalid={message ? true : undefined}
        aria-describedby={message ? `${id}-message` : undefined}
        onChange={(event) => onInput?.(event.currentTarget.value)}
        onKeyDown={onKeyDown}
      />
    </Field>
  );
}
