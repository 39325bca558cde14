import { CheckboxField } from '../../../components/ui/checkbox-field';
import { TextInput } from '../../../components/ui/text-input';
import type { FieldErrors } from '../../../lib/api';
import { formFields } from '../../../lib/form-fields';
import type { LicenseDraft } from '../api/license-draft';
import { PictureEditor } from './picture-editor';

const LABELS = {
  name: 'ライセンス名（100文字まで）',
  description: '説明（5,000文字まで）',
  price: '価格（円・税込、50〜9,999,999）',
  capacity: '定員（席数。空欄は定員なし）',
  sale_starts_at: '販売開始日時（日本時間。空欄は公開中ずっと）',
  sale_ends_at: '販売終了日時（日本時間。この日時以降は購入不可）',
};

/** The pictures' messages: the files, their names and their order, as one line under the editor. */
const pictureMessage = (errors: FieldErrors) =>
  Object.entries(errors)
    .filter(([field]) => field === 'file' || field.startsWith('file.') || field === 'filenames' || field === 'order')
    .map(([, text]) => text)
    .join(' ');

/** ライセンス名, 説明, 価格, 公開 and the pictures of the licence form. */
export function LicenseFormFields({
  draft,
  errors,
  onChange,
}: {
  draft: LicenseDraft;
  errors: FieldErrors;
  onChange: (draft: LicenseDraft) => void;
}) {
  const field = formFields(
    {
      name: draft.name,
      description: draft.description,
      price: draft.price,
      capacity: draft.capacity ?? '',
      sale_starts_at: draft.saleStartsAt ?? '',
      sale_ends_at: draft.saleEndsAt ?? '',
    },
    ({ sale_starts_at, sale_ends_at, ...text }) =>
      onChange({ ...draft, ...text, saleStartsAt: sale_starts_at, saleEndsAt: sale_ends_at }),
    errors,
    LABELS,
  );
  const description = field('description');
  return (
    <>
      <TextInput {...field('name')} required />
      <div className="field">
        <div className="field-label">
          <label htmlFor="description">{description.label}</label>
        </div>
        <textarea
          id="description"
          name="description"
          rows={8}
          value={description.value}
          aria-invalid={description.message ? true : undefined}
          aria-describedby={description.message ? 'description-message' : undefined}
          onChange={(e) => description.onInput(e.currentTarget.value)}
        />
        {description.message ? (
          <p id="description-message" className="field-message">
            {description.message}
          </p>
        ) : null}
      </div>
      <TextInput {...field('price')} type="text" required />
      <TextInput {...field('capacity')} type="text" />
      <TextInput {...field('sale_starts_at')} type="datetime-local" />
      <TextInput {...field('sale_ends_at')} type="datetime-local" />
      <CheckboxField
        label="公開する（会員の一覧に表示し、購入できるようにする）"
        name="published"
        checked={draft.published}
        onChange={(published) => onChange({ ...draft, published })}
      />
      <PictureEditor
        pictures={draft.pictures}
        message={pictureMessage(errors)}
        onChange={(pictures) => onChange({ ...draft, pictures })}
      />
    </>
  );
}
