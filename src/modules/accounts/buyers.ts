import { sql } from 'kysely';
import { type ChangeFeed, tableCache } from '../../db/changes.ts';
import { db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import { User } from './entities/user.entity.ts';

const buyerOf = (
  user: Pick<User, 'id' | 'email' | 'lastName' | 'firstName' | 'affiliation' | 'affiliationName' | 'affiliationOther'>,
) => ({
  id: user.id,
  email: user.email,
  lastName: user.lastName,
  firstName: user.firstName,
  affiliation: user.affiliation ?? null,
  affiliationName: user.affiliationName,
  affiliationOther: user.affiliationOther ?? null,
});

/** The buyer's details as they are now, for the sale a payment creates (null: the account is gone). */
export async function findBuyer(em: Em, userId: string) {
  const user = await em.findOne(User, { id: userId });
  return user ? buyerOf(user) : null;
}

/**
 * The administrators (better-auth role `admin`, not banned) with the address to tell them at, oldest
 * account first: operational notices such as the reconciliation digest go to each of them.
 */
export async function administrators(em: Em): Promise<{ id: string; email: string; lastName: string; firstName: string }[]> {
  const users = await em.find(
    User,
    { role: 'admin', $or: [{ banned: false }, { banned: null }] },
    { orderBy: { createdAt: 'asc', id: 'asc' }, fields: ['id', 'email', 'lastName', 'firstName'] },
  );
  return users.map((user) => ({ id: user.id, email: user.email, lastName: user.lastName, firstName: user.firstName }));
}

const buyerColumns = [
  'id',
  'email',
  'last_name as lastName',
  'first_name as firstName',
  'affiliation',
  'affiliation_name as affiliationName',
  'affiliation_other as affiliationOther',
  'last_name_kana as lastNameKana',
  'first_name_kana as firstNameKana',
] as const;

/**
 * The ids as one text parameter (better-auth's ids hold no comma): a batch of 5,000 (the 受注CSV's) is
 * one bind value, not 5,000.
 */
const readBuyers = (em: Em, userIds: readonly string[]) =>
  kysely(em)
    .selectFrom('users')
    .select(buyerColumns)
    .where((eb) => eb('id', '=', eb.fn.any(sql<string[]>`string_to_array(${userIds.join(',')}, ',')`)))
    .execute();

type CurrentBuyer = Awaited<ReturnType<typeof readBuyers>>[number];

/** A list shows the same few members page after page: kept until any member changes (change notices). */
const listedBuyers = (changes: ChangeFeed | undefined) =>
  tableCache<CurrentBuyer>(changes, 'listed buyers', ['users'], { max: 20_000, ttlMs: 10 * 60_000 });

/**
 * Several members' current details at once (the training-system CSV, in batches of thousands); deleted
 * ones are absent. With `changes` (a list's page), those read before are taken from memory.
 */
export async function currentBuyers(
  em: Em,
  userIds: readonly string[],
  changes?: ChangeFeed,
): Promise<Map<string, CurrentBuyer>> {
  const cache = listedBuyers(changes);
  const found = new Map<string, CurrentBuyer>();
  const missing: string[] = [];
  for (const id of new Set(userIds)) {
    const known = cache?.peek(id);
    if (known) found.set(id, known);
    else missing.push(id);
  }
  if (missing.length === 0) return found;
  const since = cache?.since() ?? 0;
  for (const row of await readBuyers(em, missing)) {
    found.set(row.id, row);
    cache?.set(row.id, row, since);
  }
  return found;
}

export type Buyer = NonNullable<Awaited<ReturnType<typeof findBuyer>>>;
