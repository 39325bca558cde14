import { useId } from 'react';
import { SelectField } from '../../../components/ui/select-field';
import { TextInput } from '../../../components/ui/text-input';
import type { FieldErrors } from '../../../lib/api';
import { useLicenseChoices } from '../api';

export interface Draft {
  subject: string;
  body: string;
  licenseId: string;
}

/** 件名, 本文 (plain text) and the licence to link, if any. */
export function ComposeFields({
  draft,
  errors,
  onChange,
}: {
  draft: Draft;
  errors: FieldErrors;
  onChange: (draft: Draft) => void;
}) {
  const bodyId = useId();
  const licenses = useLicenseChoices();
  const options = (licenses.data?.licenses ?? []).map((l) => ({ value: String(l.id), label: l.name }));
  return (
    <>
      <TextInput
        label="件名"
        name="subject"
        value={draft.subject}
        required
        message={errors.subject}
        onInput={(subject) => onChange({ ...draft, subject })}
      />
      <div className="field">
        <div className="field-label">
          <label htmlFor={bodyId}>本文（テキスト）</label>
          <span className="required" aria-hidden="true">
            必須
          </span>
        </div>
        <textarea
          id={bodyId}
          name="body"
          rows={10}
          required
          value={draft.body}
          aria-invalid={errors.body ? true : undefined}
          aria-describedby={errors.body ? `${bodyId}-message` : `${bodyId}-note`}
          onChange={(e) => onChange({ ...draft, body: e.currentTarget.value })}
        />
        <p id={`${bodyId}-note`} className="small">
          宛名（〇〇 様）、送信者の表示（会社名・住所・連絡先）と配信停止のリンクは自動で付きます。
        </p>
        {errors.body ? (
          <p id={`${bodyId}-message`} className="field-message">
            {errors.body}
          </p>
        ) : null}
      </div>
      <SelectField
        label="ご案内するライセンス（任意）"
        name="license_id"
        value={draft.licenseId}
        options={options}
        placeholder="リンクしない"
        message={errors.license_id}
        onChange={(licenseId) => onChange({ ...draft, licenseId })}
      />
    </>
  );
}
