import type { Em } from '../../db/orm.ts';
import { License } from './entities/license.entity.ts';

/** The current names of the licences `ids` (those that still exist), for reports that group sales by licence. */
export async function licenseNames(em: Em, ids: readonly number[]): Promise<Map<number, string>> {
  if (!ids.length) return new Map();
  const rows = await em.find(License, { id: { $in: [...ids] } }, { fields: ['id', 'name'] });
  return new Map(rows.map((row) => [row.id, row.name]));
}
