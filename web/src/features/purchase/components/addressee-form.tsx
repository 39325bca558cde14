import { useId } from 'react';
import { FormAlert } from '../../../components/ui/form-alert';
import { TextInput } from '../../../components/ui/text-input';
import { useAddresseeForm } from '../hooks/use-addressee-form';
import type { ReceiptIssue } from '../hooks/use-receipt-issue';
import type { ReceiptState } from '../receipt-api';
import { KonbiniNote } from './konbini-note';

type Form = ReturnType<typeof useAddresseeForm>;

/** 宛名: the buyer's name, their organisation, or a typed one. */
function AddresseeChoices({
  saleId,
  data,
  form,
  describedBy,
  errorId,
}: {
  saleId: number;
  data: ReceiptState;
  form: Form;
  describedBy?: string;
  errorId: string;
}) {
  const { values, fields, set } = form;
  return (
    <fieldset aria-describedby={describedBy}>
      <legend>宛名</legend>
      {data.options.map((option) => (
        <label key={option.value} className="receipt-dialog-choice">
          <input
            type="radio"
            name={`addressee-${saleId}`}
            value={option.value}
            checked={values.selected === option.value}
            aria-invalid={fields.addressee ? true : undefined}
            onChange={() => set.choice(option.value)}
          />
          {option.value === 'name' ? '氏名' : '所属'}：{option.label}
        </label>
      ))}
      <label className="receipt-dialog-choice">
        <input
          type="radio"
          name={`addressee-${saleId}`}
          value="custom"
          checked={values.selected === 'custom'}
          aria-invalid={fields.addressee ? true : undefined}
          onChange={() => set.choice('custom')}
        />
        宛名を入力する（例：〇〇病院 総務課）
      </label>
      {fields.addressee ? (
        <p id={errorId} className="field-message">
          {fields.addressee}
        </p>
      ) : null}
    </fieldset>
  );
}

/** A typed 宛名 and its 敬称 (様 or 御中). */
function CustomAddressee({
  saleId,
  data,
  form,
  describedBy,
  errorId,
}: {
  saleId: number;
  data: ReceiptState;
  form: Form;
  describedBy?: string;
  errorId: string;
}) {
  const { values, fields, set } = form;
  return (
    <div className="receipt-dialog-custom">
      <TextInput
        label="宛名（60文字以内）"
        name="addressee_text"
        value={values.typed}
        required
        autoComplete="organization"
        message={fields.addressee_text}
        onInput={set.text}
      />
      <fieldset aria-describedby={describedBy}>
        <legend>敬称</legend>
        <div className="receipt-dialog-honorifics">
          {data.honorifics.map((value) => (
            <label key={value} className="receipt-dialog-choice">
              <input
                type="radio"
                name={`honorific-${saleId}`}
                value={value}
                checked={values.honorific === value}
                aria-invalid={fields.honorific ? true : undefined}
                onChange={() => set.honorific(value)}
              />
              {value}
            </label>
          ))}
        </div>
        {fields.honorific ? (
          <p id={errorId} className="field-message">
            {fields.honorific}
          </p>
        ) : null}
      </fieldset>
    </div>
  );
}

/** The first issue: choose the addressee and the 但し書き, then download. */
export function AddresseeForm({
  saleId,
  data,
  receipt,
  refresh,
}: {
  saleId: number;
  data: ReceiptState;
  receipt: ReceiptIssue;
  refresh: () => unknown;
}) {
  const form = useAddresseeForm(saleId, data, receipt, refresh);
  const fieldId = useId();
  const { values, fields } = form;
  const describedBy = (name: 'addressee' | 'honorific') =>
    [name === 'addressee' ? `${fieldId}-note` : '', fields[name] ? `${fieldId}-${name}-error` : ''].filter(Boolean).join(' ') ||
    undefined;
  return (
    <form className="receipt-dialog-body" onSubmit={form.submit} noValidate>
      <FormAlert message={receipt.failure.message} />
      {data.konbini ? <KonbiniNote /> : null}
      <AddresseeChoices
        saleId={saleId}
        data={data}
        form={form}
        describedBy={describedBy('addressee')}
        errorId={`${fieldId}-addressee-error`}
      />
      {values.selected === 'custom' ? (
        <CustomAddressee
          saleId={saleId}
          data={data}
          form={form}
          describedBy={describedBy('honorific')}
          errorId={`${fieldId}-honorific-error`}
        />
      ) : null}
      <TextInput
        label="但し書き（40文字以内）"
        name="proviso"
        value={values.proviso}
        required
        message={fields.proviso}
        onInput={form.set.proviso}
      />
      <p className="receipt-dialog-note">領収書には「但し {values.proviso.trim() || data.default_proviso}」と記載されます。</p>
      <p id={`${fieldId}-note`} className="receipt-dialog-note">
        宛名と但し書きは最初の発行のあとは変更できません。
      </p>
      <button type="submit" className="button primary" disabled={receipt.busy}>
        {receipt.busy ? '発行しています…' : 'この内容で発行する（PDF）'}
      </button>
    </form>
  );
}
