import type { FormEvent } from 'react';
import { SelectField } from '../../../components/ui/select-field';
import { TextInput } from '../../../components/ui/text-input';
import type { FieldErrors } from '../../../lib/api';
import { asSelect, formFields } from '../../../lib/form-fields';
import type { AuditFilter } from '../api/audit-logs';

export type AuditFilters = Record<AuditFilter, string>;
type Options = { value: string; label: string }[];

const LABELS: AuditFilters = {
  actor: '操作者（メールアドレスの一部）',
  action: '操作',
  target_type: '対象の種類',
  target_id: '対象のID',
  from: '期間（から）',
  to: '期間（まで）',
};

/** 操作履歴の検索: who, which action, which record and when. */
export function AuditSearch({
  form,
  onChange,
  invalid,
  actions,
  targetTypes,
  onSubmit,
  onClear,
}: {
  form: AuditFilters;
  onChange: (form: AuditFilters) => void;
  invalid: FieldErrors;
  actions: Options;
  targetTypes: Options;
  onSubmit: (event: FormEvent) => void;
  onClear: () => void;
}) {
  const field = formFields(form, onChange, invalid, LABELS);
  return (
    <search aria-label="操作履歴の検索">
      <form className="search" onSubmit={onSubmit} noValidate>
        <TextInput {...field('actor')} />
        <SelectField {...asSelect(field('action'))} options={actions} placeholder="すべて" />
        <SelectField {...asSelect(field('target_type'))} options={targetTypes} placeholder="すべて" />
        <TextInput {...field('target_id')} />
        <TextInput {...field('from')} type="date" />
        <TextInput {...field('to')} type="date" />
        <div className="search-actions audit-search-actions">
          <button type="submit" className="button primary">
            検索する
          </button>
          <button type="button" className="button secondary" onClick={onClear}>
            条件をクリア
          </button>
        </div>
      </form>
    </search>
  );
}
