import type { FormEvent } from 'react';
import { SelectField } from '../../../components/ui/select-field';
import { TextInput } from '../../../components/ui/text-input';
import { SALE_STATUS_OPTIONS } from '../api';

export const SALE_FILTERS = ['license_id', 'status', 'q', 'paid_from', 'paid_to'] as const;
export type SaleFilters = Record<(typeof SALE_FILTERS)[number], string>;

/** 売上の検索: licence, status, a name/e-mail/order number and the purchase dates. */
export function SaleSearchForm({
  form,
  onChange,
  licenses,
  queryErrors,
  onSubmit,
}: {
  form: SaleFilters;
  onChange: (form: SaleFilters) => void;
  licenses: { id: number; name: string }[];
  queryErrors: Record<string, string> | null;
  onSubmit: (event: FormEvent) => void;
}) {
  return (
    <search aria-label="売上の検索">
      <form className="search" onSubmit={onSubmit}>
        <SelectField
          label="ライセンス"
          name="license_id"
          value={form.license_id}
          placeholder="すべて"
          options={licenses.map((l) => ({ value: String(l.id), label: l.name }))}
          onChange={(license_id) => onChange({ ...form, license_id })}
        />
        <SelectField
          label="状態"
          name="status"
          value={form.status}
          placeholder="すべて"
          options={SALE_STATUS_OPTIONS}
          onChange={(status) => onChange({ ...form, status })}
        />
        <TextInput
          label="氏名・フリガナ・メールアドレス・注文番号"
          name="q"
          value={form.q}
          onInput={(q) => onChange({ ...form, q })}
        />
        <TextInput
          label="購入日（から）"
          name="paid_from"
          type="date"
          value={form.paid_from}
          onInput={(paid_from) => onChange({ ...form, paid_from })}
        />
        <TextInput
          label="購入日（まで）"
          name="paid_to"
          type="date"
          message={queryErrors?.paid_to}
          value={form.paid_to}
          onInput={(paid_to) => onChange({ ...form, paid_to })}
        />
        <div className="search-actions">
          <button type="submit" className="button primary">
            検索する
          </button>
        </div>
      </form>
    </search>
  );
}
