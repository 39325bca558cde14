import { useId } from 'react';
import { Field } from '../../../components/ui/field';

/** The question itself: a textarea with how many characters are left. */
export function MessageField({
  value,
  max,
  message,
  onInput,
}: {
  value: string;
  max: number;
  message?: string;
  onInput: (value: string) => void;
}) {
  const id = useId();
  const left = max - [...value].length;
  return (
    <Field id={id} label={`お問い合わせ内容（${max.toLocaleString('ja-JP')}文字以内）`} required message={message}>
      <textarea
        id={id}
        name="message"
        rows={8}
        required
        value={value}
        aria-invalid={message ? true : undefined}
        aria-describedby={message ? `${id}-message ${id}-count` : `${id}-count`}
        onChange={(event) => onInput(event.currentTarget.value)}
      />
      <p id={`${id}-count`} className={left < 0 ? 'small field-message' : 'small'}>
        {left >= 0 ? `あと${left.toLocaleString('ja-JP')}文字` : `${(-left).toLocaleString('ja-JP')}文字多すぎます`}
      </p>
    </Field>
  );
}
