import type { Orm } from '../../db/orm.ts';
import { searchUsers } from './user-search.ts';

/** New members of a JST period, as the member list filtered by 登録日 counts them. */
export async function newMembers(orm: Orm, from: string, to: string): Promise<number> {
  const page = await searchUsers(orm, { createdFrom: from, createdTo: to, page: 1, per_page: 1, sort: '-created_at' });
  return page.total;
}
