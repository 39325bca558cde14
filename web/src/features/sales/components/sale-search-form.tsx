import type { FormEvent } from 'react';
import { SelectField } from '../../../components/ui/select-field';
import { TextInput } from '../../../components/ui/text-input';
import { asSelect, formFields } from '../../../lib/form-fields';
import { type SaleStatusLabels, saleStatusOptions } from '../api';

export const SALE_FILTERS = ['license_id', 'status', 'payment_method', 'q', 'paid_from', 'paid_to'] as const;
export type SaleFilters = Record<(typeof SALE_FILTERS)[number], string>;

const LABELS: SaleFilters = {
  license_id: 'ライセンス',
  status: '状態',
  payment_method: 'お支払い方法',
  q: '氏名・フリガナ・メールアドレス・注文番号',
  paid_from: '購入日（から）',
  paid_to: '購入日（まで）',
};

const PAYMENT_METHODS = [
  { value: 'card', label: 'クレジットカード' },
  { value: 'konbini', label: 'コンビニ払い' },
  { value: 'bank_transfer', label: '銀行振込' },
];

/** 売上の検索: licence, status, payment method, a name/e-mail/order number and the purchase dates. */
export function SaleSearchForm({
  form,
  onChange,
  licenses,
  statuses,
  queryErrors,
  onSubmit,
}: {
  form: SaleFilters;
  onChange: (form: SaleFilters) => void;
  licenses: { id: number; name: string }[];
  statuses: SaleStatusLabels | undefined;
  queryErrors: Record<string, string> | null;
  onSubmit: (event: FormEvent) => void;
}) {
  const field = formFields(form, onChange, queryErrors ?? {}, LABELS);
  return (
    <search aria-label="売上の検索">
      <form className="search" onSubmit={onSubmit}>
        <SelectField
          {...asSelect(field('license_id'))}
          placeholder="すべて"
          options={licenses.map((l) => ({ value: String(l.id), label: l.name }))}
        />
        <SelectField {...asSelect(field('status'))} placeholder="すべて" options={saleStatusOptions(statuses)} />
        <SelectField {...asSelect(field('payment_method'))} placeholder="すべて" options={PAYMENT_METHODS} />
        <TextInput {...field('q')} />
        <TextInput {...field('paid_from')} type="date" />
        <TextInput {...field('paid_to')} type="date" />
        <div className="search-actions">
          <button type="submit" className="button primary">
            検索する
          </button>
        </div>
      </form>
    </search>
  );
}
