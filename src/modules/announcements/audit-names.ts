import { db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import { isUuid } from '../../http/path-ids.ts';

/** The audit log's target column for announcements: 「件名」. */
export async function announcementNames(em: Em, ids: readonly string[]): Promise<ReadonlyMap<string, string>> {
  const uuids = ids.filter((id) => isUuid(id));
  if (uuids.length === 0) return new Map();
  const rows = await kysely(em).selectFrom('announcements').select(['id', 'subject']).where('id', 'in', uuids).execute();
  return new Map(rows.map((row) => [row.id, `「${row.subject}」`]));
}
