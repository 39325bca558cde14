import { db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import { isUuid } from '../../http/path-ids.ts';

/** The audit log's target column for mails: 「件名」（宛先）. */
export async function mailNames(em: Em, ids: readonly string[]): Promise<ReadonlyMap<string, string>> {
  const uuids = ids.filter((id) => isUuid(id));
  if (uuids.length === 0) return new Map();
  const rows = await kysely(em)
    .selectFrom('mail_deliveries')
    .select(['id', 'subject', 'recipient'])
    .where('id', 'in', uuids)
    .execute();
  return new Map(rows.map((row) => [row.id, `「${row.subject}」（${row.recipient}）`]));
}
