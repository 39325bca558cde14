import type { Em } from '../../db/orm.ts';
import { isUuid } from '../../http/path-ids.ts';
import type { AuditVocabulary } from './labels.ts';

interface Target {
  action: string;
  target_type: string;
  target_id: string;
  before: unknown;
  after: unknown;
}

/** Ids that mean nothing to a person: a UUID, or a bare number. */
const isInternalId = (id: string) => isUuid(id) || /^\d+$/.test(id);

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : null);

/** A name kept in the entry itself (a deleted licence's name, a removed member's name and address). */
function nameInSnapshot(entry: Target): string | null {
  for (const snapshot of [entry.before, entry.after]) {
    if (!snapshot || typeof snapshot !== 'object' || Array.isArray(snapshot)) continue;
    const s = snapshot as Record<string, unknown>;
    const person = [text(s.last_name), text(s.first_name)].filter(Boolean).join(' ');
    const email = text(s.email);
    if (person) return email ? `${person}（${email}）` : person;
    const name = text(s.name) ?? text(s.subject) ?? email;
    if (name) return name;
  }
  return null;
}

/** What the target column says when its module no longer has the record: never a bare internal id. */
function fallbackName(words: AuditVocabulary, entry: Target): string {
  const kept = nameInSnapshot(entry);
  if (kept) return kept;
  if (!isInternalId(entry.target_id)) return entry.target_id;
  const label = words.targetLabel(entry.target_type);
  return /\.(delete|withdraw)$/.test(entry.action) ? `削除された${label}` : `${label}（記録が見つかりません）`;
}

/** Each entry's target in a person's words, one query per target type on the page. */
export async function targetNames(em: Em, words: AuditVocabulary, entries: readonly Target[]): Promise<string[]> {
  const byType = new Map<string, Set<string>>();
  for (const entry of entries) {
    if (!words.namesOf(entry.target_type)) continue;
    const ids = byType.get(entry.target_type) ?? new Set<string>();
    ids.add(entry.target_id);
    byType.set(entry.target_type, ids);
  }
  const found = new Map<string, ReadonlyMap<string, string>>();
  for (const [type, ids] of byType) {
    const namer = words.namesOf(type);
    if (namer) found.set(type, await namer(em, [...ids]));
  }
  return entries.map((entry) => found.get(entry.target_type)?.get(entry.target_id) ?? fallbackName(words, entry));
}

/** The sales an entry lists (a status move's first ten), by 注文番号: one query for the page. */
export async function listedSaleNames(
  em: Em,
  words: AuditVocabulary,
  rows: readonly { first_sale_ids: unknown }[],
): Promise<ReadonlyMap<string, string>> {
  const ids = new Set<string>();
  for (const row of rows) if (Array.isArray(row.first_sale_ids)) for (const id of row.first_sale_ids) ids.add(String(id));
  const namer = words.namesOf('sale');
  return namer && ids.size ? namer(em, [...ids]) : new Map();
}
