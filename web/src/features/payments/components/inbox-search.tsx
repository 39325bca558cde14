import type { FormEvent } from 'react';
import { SelectField } from '../../../components/ui/select-field';
import { TextInput } from '../../../components/ui/text-input';
import type { FieldErrors } from '../../../lib/api';
import { asSelect, formFields } from '../../../lib/form-fields';
import { type EVENT_FILTERS, EVENT_STATES, EVENT_TYPES } from '../api';

export type InboxFilters = Record<(typeof EVENT_FILTERS)[number], string>;
export const NO_FILTERS: InboxFilters = { type: '', state: '', session: '', order_number: '', from: '', to: '' };

const LABELS: InboxFilters = {
  type: '種類',
  state: '状態',
  from: '受信日（から）',
  to: '受信日（まで）',
  order_number: '注文番号',
  session: 'Stripe の決済セッションID',
};

/** The inbox's search: type, state, the days received, an order number or a Stripe checkout session. */
export function InboxSearch({
  form,
  onChange,
  filtered,
  invalid,
  onSubmit,
  onClear,
}: {
  form: InboxFilters;
  onChange: (form: InboxFilters) => void;
  filtered: boolean;
  invalid: FieldErrors;
  onSubmit: (event: FormEvent) => void;
  onClear: () => void;
}) {
  const field = formFields(form, onChange, invalid, LABELS);
  return (
    <form className="search search-rows" onSubmit={onSubmit}>
      <div className="field-row">
        <SelectField {...asSelect(field('type'))} placeholder="すべて" options={EVENT_TYPES} />
        <SelectField {...asSelect(field('state'))} placeholder="すべて" options={EVENT_STATES} />
      </div>
      <div className="field-row">
        <TextInput {...field('from')} type="date" />
        <TextInput {...field('to')} type="date" />
      </div>
      <div className="field-row">
        <TextInput {...field('order_number')} placeholder="LS-2611-7K3Q9M" />
        <TextInput {...field('session')} />
      </div>
      <div className="search-actions">
        <button type="submit" className="button primary">
          検索
        </button>
        {filtered ? (
          <button type="button" className="button" onClick={onClear}>
            条件をクリア
          </button>
        ) : null}
      </div>
    </form>
  );
}
