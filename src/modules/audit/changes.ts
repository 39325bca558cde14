import { type AuditVocabulary, isSecretField } from './labels.ts';

export interface Change {
  field: string;
  label: string;
  before: string | null;
  after: string | null;
}

type Snapshot = Record<string, unknown> | null | undefined;

const asObject = (value: unknown): Snapshot =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

/** Order-sensitive structural equality of JSON values (what jsonb gives back). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    // A field absent on one side and null on the other did not change.
    return (a ?? null) === (b ?? null);
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => same(item, b[i]));
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * An entry's before → after as the screen shows it: only the fields that changed (a creation: what
 * it was created with; a deletion: what was deleted), values as Japanese text, secrets never.
 */
export function changesOf(words: AuditVocabulary, targetType: string, beforeValue: unknown, afterValue: unknown): Change[] {
  const { fieldLabel, fieldRank, formatValue } = words;
  const before = asObject(beforeValue);
  const after = asObject(afterValue);
  const fields = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].sort(
    (a, b) => fieldRank(a) - fieldRank(b) || (a < b ? -1 : a > b ? 1 : 0),
  );
  const changes: Change[] = [];
  for (const field of fields) {
    if (isSecretField(field)) continue;
    const was = before?.[field];
    const now = after?.[field];
    if (before && after && same(was, now)) continue;
    const change = {
      field,
      label: fieldLabel(targetType, field),
      before: before ? formatValue(field, was, targetType) : null,
      after: after ? formatValue(field, now, targetType) : null,
    };
    // A creation's empty fields and a deletion's empty fields say nothing.
    if (change.before === null && change.after === null) continue;
    changes.push(change);
  }
  return changes;
}
