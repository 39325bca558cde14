import { db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';

/** The audit log's target column for licences: the licence's name. */
export async function licenseNames(em: Em, ids: readonly string[]): Promise<ReadonlyMap<string, string>> {
  const numbers = ids.filter((id) => /^\d{1,9}$/.test(id)).map(Number);
  if (numbers.length === 0) return new Map();
  const rows = await kysely(em).selectFrom('licenses').select(['id', 'name']).where('id', 'in', numbers).execute();
  return new Map(rows.map((row) => [String(row.id), row.name]));
}
