import { now as dbNow, db as kysely } from '../../db/kysely.ts';
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

/** Several members' current details at once (the CSVs, in batches of thousands); deleted ones are absent. */
export async function currentBuyers(em: Em, userIds: readonly string[]): Promise<Map<string, CurrentBuyer>> {
  if (userIds.length === 0) return new Map();
  const rows = await kysely(em)
    .selectFrom('users')
    .select([
      'id',
      'email',
      'last_name as lastName',
      'first_name as firstName',
      'affiliation',
      'affiliation_name as affiliationName',
      'affiliation_other as affiliationOther',
      'last_name_kana as lastNameKana',
      'first_name_kana as firstNameKana',
    ])
    .where('id', 'in', [...new Set(userIds)])
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

export type Buyer = NonNullable<Awaited<ReturnType<typeof findBuyer>>>;
type CurrentBuyer = Buyer & { lastNameKana: string | null; firstNameKana: string | null };

/** The purchase screen's distribution opt-in is the member's current choice: saved in the caller's transaction. */
export async function setDistribution(tx: Em, userId: string, distribution: boolean): Promise<void> {
  await kysely(tx).updateTable('users').set({ distribution, updated_at: dbNow() }).where('id', '=', userId).execute();
}
