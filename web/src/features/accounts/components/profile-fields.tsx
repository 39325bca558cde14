import { CheckboxField } from '../../../components/ui/checkbox-field';
import { SelectField } from '../../../components/ui/select-field';
import { TextInput } from '../../../components/ui/text-input';
import type { FieldErrors } from '../../../lib/api';
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
  const set = (field: keyof ProfileValues) => (value: string | boolean) => onChange({ ...values, [field]: value });
  return (
    <>
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
      <TextInput
        label="メールアドレス（確認）"
        name="email_confirmation"
        type="email"
        autoComplete="email"
        required
        value={values.email_confirmation}
        message={errors.email_confirmation}
        onInput={set('email_confirmation')}
      />
      <div className="field-row">
        <TextInput
          label="姓"
          name="last_name"
          autoComplete="family-name"
          required
          value={values.last_name}
          message={errors.last_name}
          onInput={set('last_name')}
        />
        <TextInput
          label="名"
          name="first_name"
          autoComplete="given-name"
          required
          value={values.first_name}
          message={errors.first_name}
          onInput={set('first_name')}
        />
      </div>
      <div className="field-row">
        <TextInput
          label="セイ"
          name="last_name_kana"
          autoComplete="off"
          required={kanaRequired}
          placeholder="例：ヤマダ"
          value={values.last_name_kana}
          message={errors.last_name_kana}
          onInput={set('last_name_kana')}
        />
        <TextInput
          label="メイ"
          name="first_name_kana"
          autoComplete="off"
          required={kanaRequired}
          placeholder="例：タロウ"
          value={values.first_name_kana}
          message={errors.first_name_kana}
          onInput={set('first_name_kana')}
        />
      </div>
      <p className="small">セイ・メイは全角カタカナで入力してください（ひらがなで入力してもカタカナで登録されます）。</p>
      <SelectField
        label="所属"
        name="affiliations"
        required
        value={values.affiliations}
        options={AFFILIATIONS}
        message={errors.affiliations}
        onChange={set('affiliations')}
      />
      {values.affiliations === AFFILIATION_OTHER ? (
        <TextInput
          label="その他の所属"
          name="affiliation_other"
          required
          placeholder="例：民間救急"
          value={values.affiliation_other}
          message={errors.affiliation_other}
          onInput={set('affiliation_other')}
        />
      ) : null}
      <TextInput
        label="所属名"
        name="affiliation_name"
        autoComplete="organization"
        required
        placeholder="例：〇〇市消防局"
        value={values.affiliation_name}
        message={errors.affiliation_name}
        onInput={set('affiliation_name')}
      />
      <CheckboxField
        label="新しいトレーニングやライセンスのご案内をメールで受け取る"
        name="distribution"
        checked={values.distribution}
        message={errors.distribution}
        onChange={set('distribution')}
      />
    </>
  );
}
