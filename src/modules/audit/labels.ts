import type { Em } from '../../db/orm.ts';

/** The words belong to the modules that record the entries; anything nobody named falls back to its record type and verb. */

interface ValueText {
  plain(value: unknown): string;
  list(values: unknown[], format?: (value: unknown) => string): string;
  isEmpty(value: unknown): boolean;
  isSecretField(field: string): boolean;
}

type ValueFormat = Readonly<Record<string, string>> | ((value: unknown, text: ValueText) => string);

export interface AuditLabels {
  actions?: Readonly<Record<string, string>>;
  targets?: Readonly<Record<string, string>>;
  verbs?: Readonly<Record<string, string>>;
  fields?: Readonly<Record<string, string>>;
  fieldsByTarget?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  values?: Readonly<Record<string, ValueFormat>>;
  /** Before `values`: a mail's `status` is not a sale's. */
  valuesByTarget?: Readonly<Record<string, Readonly<Record<string, ValueFormat>>>>;
  /** What a person calls each record of a type (a member's name, an 注文番号), read from the owning module's tables. */
  names?: Readonly<Record<string, TargetNames>>;
}

/** Names by target id, for the ids of one page that the module still holds (a deleted record has none). */
type TargetNames = (em: Em, ids: readonly string[]) => Promise<ReadonlyMap<string, string>>;

export interface AuditVocabulary {
  actionLabel(action: string): string;
  targetLabel(targetType: string): string;
  actionOrder(a: string, b: string): number;
  targetOrder(a: string, b: string): number;
  fieldLabel(targetType: string, field: string): string;
  fieldRank(field: string): number;
  formatValue(field: string, value: unknown, targetType?: string): string | null;
  /** The namer of a target type, if its module gave one. */
  namesOf(targetType: string): TargetNames | undefined;
}

const VERBS: Record<string, string> = {
  create: '登録',
  update: '変更',
  delete: '削除',
  run: '実行',
  replay: '再処理',
  revert: '差し戻し',
  status: '状態の変更',
  export: '出力',
  download: 'ダウンロード',
};

/** Secrets and what derives from them. */
export const isSecretField = (field: string) =>
  /password|passwd|hash|token|secret|salt|credential|cookie|api_?key|(^|_)otp(_|$)/i.test(field);

const LISTED = 10;

const yesNo = (value: unknown) => (value ? 'はい' : 'いいえ');
const isEmpty = (value: unknown) =>
  value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);

function plain(value: unknown): string {
  if (typeof value === 'boolean') return yesNo(value);
  if (typeof value === 'number') return value.toLocaleString('ja-JP');
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(plain).join('、');
  if (value && typeof value === 'object') {
    return Object.entries(value)
      .filter(([key, v]) => !isSecretField(key) && !isEmpty(v))
      .map(([key, v]) => `${key}: ${plain(v)}`)
      .join('、');
  }
  return String(value);
}

function list(values: unknown[], format: (value: unknown) => string = plain): string {
  const shown = values.slice(0, LISTED).map(format).join('、');
  return values.length > LISTED ? `${values.length.toLocaleString('ja-JP')}件（${shown}ほか）` : shown;
}

const text: ValueText = { plain, list, isEmpty, isSecretField };

const byKnownOrder = (known: Record<string, string>) => {
  const order = Object.keys(known);
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  return (a: string, b: string) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
};

export function auditVocabulary(parts: readonly AuditLabels[]): AuditVocabulary {
  const merge = <K extends keyof AuditLabels>(key: K) => Object.assign({}, ...parts.map((p) => p[key] ?? {}));
  const actions: Record<string, string> = merge('actions');
  const targets: Record<string, string> = merge('targets');
  const verbs: Record<string, string> = { ...VERBS, ...merge('verbs') };
  const fields: Record<string, string> = merge('fields');
  const fieldsByTarget: Record<string, Record<string, string>> = {};
  for (const part of parts) {
    for (const [target, names] of Object.entries(part.fieldsByTarget ?? {})) {
      fieldsByTarget[target] = { ...fieldsByTarget[target], ...names };
    }
  }
  const values: Record<string, ValueFormat> = merge('values');
  const valuesByTarget: Record<string, Record<string, ValueFormat>> = {};
  for (const part of parts) {
    for (const [target, formats] of Object.entries(part.valuesByTarget ?? {})) {
      valuesByTarget[target] = { ...valuesByTarget[target], ...formats };
    }
  }
  const names: Record<string, TargetNames> = merge('names');
  // jsonb keeps keys in its own order.
  const order = ['name', ...Object.keys(fields)];

  return {
    actionLabel(action) {
      const known = actions[action];
      if (known) return known;
      const words = action.split('.');
      const subject = targets[words[0] ?? ''];
      const verb = verbs[words.at(-1) ?? ''];
      if (subject && verb && words.length > 1) return `${subject}の${verb}`;
      if (subject) return `${subject}の操作（${action}）`;
      return action;
    },
    targetLabel: (targetType) => targets[targetType] ?? targetType,
    actionOrder: byKnownOrder(actions),
    targetOrder: byKnownOrder(targets),
    fieldLabel: (targetType, field) => fieldsByTarget[targetType]?.[field] ?? fields[field] ?? field,
    fieldRank(field) {
      const rank = order.indexOf(field);
      return rank < 0 ? order.length : rank;
    },
    namesOf: (targetType) => names[targetType],
    formatValue(field, value, targetType) {
      if (isEmpty(value)) return null;
      const format = (targetType ? valuesByTarget[targetType]?.[field] : undefined) ?? values[field];
      if (typeof format === 'function') return format(value, text);
      if (format) return format[String(value)] ?? plain(value);
      return plain(value);
    },
  };
}
