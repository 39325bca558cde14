import { parseArgs } from 'node:util';
import * as v from 'valibot';
import { loadEnv } from '../config/env.ts';
import { migrateShop, openDatabase } from '../host/modules.ts';
import { fieldErrors, rules } from '../http/validate.ts';
import { createOrPromoteAdmin, newPasswordProblem } from '../modules/accounts/index.ts';

const { values } = parseArgs({
  options: { email: { type: 'string' }, password: { type: 'string' } },
  strict: true,
});
const input = v.safeParse(v.object({ email: rules.email(), password: rules.password() }), values);
// The password rules of every other way in (common passwords, none built from the e-mail address).
const problem = input.success ? await newPasswordProblem(input.output.password, { email: input.output.email }) : null;
if (!input.success || problem) {
  const errors = input.success ? { password: [problem] } : fieldErrors(input.issues);
  for (const [field, messages] of Object.entries(errors)) console.error(`--${field}: ${messages[0]}`);
  console.error('使い方 (usage): npm run admin:create -- --email E --password P');
  process.exit(2);
}

const env = loadEnv();
const orm = await openDatabase(env);
try {
  await migrateShop(env, orm);
  const { user, created } = await createOrPromoteAdmin(orm, input.output);
  console.log(
    created
      ? `管理者を作成しました (administrator created): ${user.email}`
      : `既存のユーザーを管理者にしました (existing user is an administrator; password unchanged): ${user.email}`,
  );
  if (!user.twoFactorEnabled) {
    console.log(
      '管理者は二段階認証の設定が必要です。ログイン後、表示される画面で認証アプリを登録してください。' +
        ' (administrators must enrol in two-factor authentication: sign in and follow the set-up screen before using admin pages)',
    );
  }
} finally {
  await orm.close(true);
}
