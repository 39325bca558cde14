import { loadEnv } from '../config/env.ts';
import { migrateShop, openDatabase } from '../host/modules.ts';

const command = process.argv[2] ?? 'up';
const env = loadEnv();
const orm = await openDatabase(env);
try {
  if (command === 'create') {
    const initial = process.argv.includes('--initial');
    const name = process.argv.slice(3).find((arg) => !arg.startsWith('--'));
    const result = await orm.migrator.create(undefined, false, initial, name);
    console.log(result.fileName ? `作成しました (created): ${result.fileName}` : '変更はありません (no schema changes)');
  } else {
    const names = await migrateShop(env, orm);
    console.log(names.length ? `適用しました (applied): ${names.join(', ')}` : '最新です (up to date)');
  }
} finally {
  await orm.close(true);
}
