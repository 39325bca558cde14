import { randomBytes } from 'node:crypto';
import type { Em, Orm } from '../../db/orm.ts';
import { transact } from '../../events/outbox.ts';
import { User } from './entities/user.entity.ts';
import { createUser } from './users.ts';

export interface DemoAccount {
  role: 'admin' | 'user';
  email: string;
  password: string;
}

/**
 * On an empty development database: one demo administrator and one demo member with random
 * passwords, returned so start-up can print them once. Never called in production.
 */
export async function seedDemoAccounts(orm: Orm): Promise<DemoAccount[]> {
  const em = orm.em.fork() as Em;
  if ((await em.count(User, {})) > 0) return [];
  const accounts: DemoAccount[] = [
    { role: 'admin', email: 'demo-admin@example.jp', password: randomBytes(9).toString('base64url') },
    { role: 'user', email: 'demo-member@example.jp', password: randomBytes(9).toString('base64url') },
  ];
  await transact(em, async (tx) => {
    for (const account of accounts) {
      await createUser(tx, {
        email: account.email,
        password: account.password,
        lastName: 'デモ',
        firstName: account.role === 'admin' ? '管理者' : '会員',
        role: account.role,
        emailVerified: true,
        // As every real member has one (a member cannot register without it).
        ...(account.role === 'user' ? { affiliation: 4, affiliationName: 'デモ市消防局' } : {}),
      });
    }
  });
  return accounts;
}
