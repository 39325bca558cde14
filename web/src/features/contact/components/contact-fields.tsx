import { SelectField } from '../../../components/ui/select-field';
import { TextInput } from '../../../components/ui/text-input';
import type { FieldErrors } from '../../../lib/api';
import { MessageField } from './message-field';

interface ContactValues {
  name: string;
  email: string;
  category: string;
  order_number: string;
  message: string;
}

/** The form's fields, and a trap for scripts: the hidden 「website」 field people never see. */
export function ContactFields({
  values,
  errors,
  categories,
  messageMax,
  website,
  set,
  setWebsite,
}: {
  values: ContactValues;
  errors: FieldErrors;
  categories: string[];
  messageMax: number;
  website: string;
  set: (field: keyof ContactValues) => (value: string) => void;
  setWebsite: (value: string) => void;
}) {
  return (
    <>
      <TextInput
        label="お名前"
        name="name"
        autoComplete="name"
        required
        value={values.name}
        message={errors.name}
        onInput={set('name')}
      />
      <TextInput
        label="メールアドレス"
        name="email"
        type="email"
        autoComplete="email"
        required
        value={values.email}
        message={errors.email}
        onInput={set('email')}
      />
      <SelectField
        label="お問い合わせの種類"
        name="category"
        required
        value={values.category}
        options={categories.map((c) => ({ value: c, label: c }))}
        message={errors.category}
        onChange={set('category')}
      />
      <TextInput
        label="ご注文番号（わかる場合）"
        name="order_number"
        placeholder="LS-2026-XXXXXX"
        value={values.order_number}
        message={errors.order_number}
        onInput={set('order_number')}
      />
      <MessageField
        value={values.message}
        max={messageMax}
        message={errors.message ?? errors.form_token}
        onInput={set('message')}
      />
      <div className="honeypot" aria-hidden="true">
        <label>
          この欄は空のままにしてください
          <input
            name="website"
            tabIndex={-1}
            autoComplete="off"
            value={website}
            onChange={(e) => setWebsite(e.currentTarget.value)}
          />
        </label>
      </div>
    </>
  );
}
