import { type Orm, withMigrationLock } from '../db/orm.ts';
import type { Logger } from '../lib/logger.ts';
import { loadDemo as loadDemoAccounts } from '../modules/accounts/index.ts';
import { loadDemo as loadDemoLicenses } from '../modules/licenses/index.ts';
import type { FileStore } from '../storage/file-store.ts';

/**
 * Development only: on an empty database, demo licences, a demo administrator and a demo member,
 * whose sign-in details are printed once. main.ts imports this file only outside production.
 * It runs under the migration lock: of several processes starting on one empty database, the first
 * seeds and the others find the data there.
 */
export async function seedDemo(orm: Orm, lockUrl: string | undefined, files: FileStore, log: Logger): Promise<void> {
  const demo = await withMigrationLock(orm, lockUrl, async () => {
    const licenses = await (await loadDemoLicenses()).seedDemoLicenses(orm, files);
    if (licenses) log.info('demo licences created', { count: licenses });
    return (await loadDemoAccounts()).seedDemoAccounts(orm);
  });
  if (!demo.length) return;
  const lines = demo.map((a) => `  ${a.role === 'admin' ? '管理者 (admin) ' : '会員 (member)  '}  ${a.email}  /  ${a.password}`);
  console.log(
    ['', '空のデータベースにデモ用アカウントを作成しました (demo accounts, shown only once):', ...lines, ''].join('\n'),
  );
}
