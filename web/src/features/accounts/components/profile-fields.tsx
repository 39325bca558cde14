import { CheckboxField } from '../../../components/ui/checkbox-field';
import { SelectField } from '../../../components/ui/select-field';
import { TextInput } from '../../../components/ui/text-input';
import type { FieldErrors } from '../../../lib/api';
import { asSelect, formFields } from '../../../lib/form-fields';
import { AFFILIATION_OTHER, AFFILIATIONS, type ProfileValues } from '../api/profile';

export const PROFILE_FIELDS = [
  'email',
  'email_confirmation',
  'last_name',
  'first_name',
  'last_name_kana',
  'first_name_kana',
  'affiliations',
  'affiliation_name',
  'affiliation_other',
  'distribution',
];

type TextValues = Omit<ProfileValues, 'distribution'>;

const LABELS: Record<keyof TextValues, string> = {
  email: 'メールアドレス',
  email_confirmation: 'メールアドレス（確認）',
  last_name: '姓',
  first_name: '名',
  last_name_kana: 'セイ',
  first_name_kana: 'メイ',
  affiliations: '所属',
  affiliation_name: '所属名',
  affiliation_other: 'その他の所属',
};

/**
 * The member's profile fields, shared by registration and edit. フリガナ is asked for (marked
 * required) on the member's own forms; an administrator's edit may leave it empty.
 */
export function ProfileFields({
  values,
  errors,
  onChange,
  kanaRequired = true,
}: {
  values: ProfileValues;
  errors: FieldErrors;
  onChange: (values: ProfileValues) => void;
  kanaRequired?: boolean;
}) {
  const field = formFields<TextValues>(values, (next) => onChange({ ...values, ...next }), errors, LABELS);
  return (
    <>
      <TextInput {...field('email')} type="email" autoComplete="email" required />
      <TextInput {...field('email_confirmation')} type="email" autoComplete="email" required />
      <div className="field-row">
        <TextInput {...field('last_name')} autoComplete="family-name" required />
        <TextInput {...field('first_name')} autoComplete="given-name" required />
      </div>
      <div className="field-row">
        <TextInput {...field('last_name_kana')} autoComplete="off" required={kanaRequired} placeholder="例：ヤマダ" />
        <TextInput {...field('first_name_kana')} autoComplete="off" required={kanaRequired} placeholder="例：タロウ" />
      </div>
      <p className="small">セイ・メイは全角カタカナで入力してください（ひらがなで入力してもカタカナで登録されます）。</p>
      <SelectField {...asSelect(field('affiliations'))} required options={AFFILIATIONS} />
      {values.affiliations === AFFILIATION_OTHER ? (
        <TextInput {...field('affiliation_other')} required placeholder="例：民間救急" />
      ) : null}
      <TextInput {...field('affiliation_name')} autoComplete="organization" required placeholder="例：〇〇市消防局" />
      <CheckboxField
        label="新しいトレーニングやライセンスのご案内をメールで受け取る"
        name="distribution"
        checked={values.distribution}
        message={errors.distribution}
        onChange={(distribution) => onChange({ ...values, distribution })}
      />
    </>
  );
}
