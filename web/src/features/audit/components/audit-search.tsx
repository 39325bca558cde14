import type { FormEvent } from 'react';
import { SelectField } from '../../../components/ui/select-field';
import { TextInput } from '../../../components/ui/text-input';
import type { FieldErrors } from '../../../lib/api';
import type { AuditFilter } from '../api/audit-logs';

export type AuditFilters = Record<AuditFilter, string>;
type Options = { value: string; label: string }[];

/** 操作履歴の検索: who, which action, which record and when. */
export function AuditSearch({
  form,
  set,
  invalid,
  actions,
  targetTypes,
  onSubmit,
  onClear,
}: {
  form: AuditFilters;
  set: (field: AuditFilter) => (value: string) => void;
  invalid: FieldErrors;
  actions: Options;
  targetTypes: Options;
  onSubmit: (event: FormEvent) => void;
  onClear: () => void;
}) {
  return (
    <search aria-label="操作履歴の検索">
      <form className="search" onSubmit={onSubmit} noValidate>
        <TextInput
          label="操作者（メールアドレスの一部）"
          name="actor"
          value={form.actor}
          message={invalid.actor}
          onInput={set('actor')}
        />
        <SelectField
          label="操作"
          name="action"
          value={form.action}
          options={actions}
          placeholder="すべて"
          message={invalid.action}
          onChange={set('action')}
        />
        <SelectField
          label="対象の種類"
          name="target_type"
          value={form.target_type}
          options={targetTypes}
          placeholder="すべて"
          message={invalid.target_type}
          onChange={set('target_type')}
        />
        <TextInput
          label="対象のID"
          name="target_id"
          value={form.target_id}
          message={invalid.target_id}
          onInput={set('target_id')}
        />
        <TextInput label="期間（から）" name="from" type="date" value={form.from} message={invalid.from} onInput={set('from')} />
        <TextInput label="期間（まで）" name="to" type="date" value={form.to} message={invalid.to} onInput={set('to')} />
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
