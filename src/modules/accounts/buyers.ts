import { MikroORM } from '@mikro-orm/core';
import { now as dbNow, db as kysely, prepared, queries } from '../../db/kysely.ts';
import { type Em, type Orm, readQuery } from '../../db/orm.ts';
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

/** Several members' current details at once (the training-system CSV, in batches of thousands); deleted ones are absent. */
/**
 * The members' columns as one JSON value of arrays (one string to decode, not 7 × n fields), for one
 * bound text parameter of ids (uuids: no commas) rather than thousands of inlined placeholders.
 * Compiled once (db/kysely.ts prepared): the sales list sends it on every request.
 */
const buyersStatement = prepared((ids: string) =>
  queries
    .selectFrom('users')
    .select((eb) => {
      const column = (
        name: 'id' | 'email' | 'last_name' | 'first_name' | 'affiliation' | 'affiliation_name' | 'affiliation_other',
      ) => eb.fn.agg('array_agg', [name]);
      const columns = eb.fn('json_build_array', [
        column('id'),
        column('email'),
        column('last_name'),
        column('first_name'),
        column('affiliation'),
        column('affiliation_name'),
        column('affiliation_other'),
      ]);
      return eb.cast<string | null>(columns, 'text').as('columns');
    })
    .where((eb) => eb('id', '=', eb.fn.any(eb.fn<string[]>('string_to_array', [eb.val(ids), eb.val(',')])))),
);

/**
 * The members as they are now, by id. On an EntityManager (in its transaction, if any); on the ORM,
 * straight on the pool (db/orm.ts readQuery) — the sales list's path (decision 0037).
 */
export async function currentBuyers(source: Em | Orm, userIds: readonly string[]): Promise<Map<string, Buyer>> {
  if (userIds.length === 0) return new Map();
  const statement = buyersStatement([...new Set(userIds)].join(','));
  const [result] =
    source instanceof MikroORM
      ? await readQuery(source, statement)
      : (await kysely(source).executeQuery(statement.compile())).rows;
  const [ids, emails, lastNames, firstNames, affiliations, names, others] = JSON.parse(result?.columns ?? '[]') as [
    string[] | null,
    string[],
    string[],
    string[],
    (number | null)[],
    string[],
    (string | null)[],
  ];
  const buyers = new Map<string, Buyer>();
  (ids ?? []).forEach((id, i) => {
    buyers.set(id, {
      id,
      email: emails[i] as string,
      lastName: lastNames[i] as string,
      firstName: firstNames[i] as string,
      affiliation: affiliations[i] ?? null,
      affiliationName: names[i] as string,
      affiliationOther: others[i] ?? null,
    });
  });
  return buyers;
}

export type Buyer = NonNullable<Awaited<ReturnType<typeof findBuyer>>>;

/** The purchase screen's distribution opt-in is the member's current choice: saved in the caller's transaction. */
export async function setDistribution(tx: Em, userId: string, distribution: boolean): Promise<void> {
  await kysely(tx).updateTable('users').set({ distribution, updated_at: dbNow() }).where('id', '=', userId).execute();
}
