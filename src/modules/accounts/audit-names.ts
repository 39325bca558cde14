import { db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import { isUuid } from '../../http/path-ids.ts';

/** The audit log's target column for accounts: 「山田 太郎（yamada@example.jp）」; a member CSV's entry names the list. */
export async function userNames(em: Em, ids: readonly string[]): Promise<ReadonlyMap<string, string>> {
  const names = new Map<string, string>();
  if (ids.includes('csv')) names.set('csv', '会員の一覧（CSV）');
  const userIds = ids.filter((id) => isUuid(id));
  if (userIds.length === 0) return names;
  const rows = await kysely(em)
    .selectFrom('users')
    .select(['id', 'last_name', 'first_name', 'email'])
    .where('id', 'in', userIds)
    .execute();
  for (const row of rows) {
    const person = `${row.last_name} ${row.first_name}`.trim();
    names.set(row.id, person ? `${person}（${row.email}）` : row.email);
  }
  return names;
}
