import { authSecretFor, loadEnv } from '../config/env.ts';
import { openDatabase } from '../host/modules.ts';
import { acceptPreviousSecrets } from '../lib/secrets.ts';
import { reencryptTwoFactorSecrets } from '../modules/accounts/index.ts';

// `npm run secrets:rotate`: after a restart with a new AUTH_SECRET and the old one in
// AUTH_PREVIOUS_SECRETS, re-encrypts every two-factor secret and recovery code under AUTH_SECRET, so
// the old secret can be dropped (README「秘密鍵の入れ替え」, docs/runbooks/secret-rotation.md).
const env = loadEnv();
const secret = authSecretFor(env);
acceptPreviousSecrets(secret, env.authPreviousSecrets);
const orm = await openDatabase(env);
try {
  const { reencrypted, unreadable } = await reencryptTwoFactorSecrets(orm, secret);
  console.log(`二段階認証の秘密情報を再暗号化しました (re-encrypted under AUTH_SECRET): ${reencrypted}`);
  if (unreadable > 0) {
    console.error(
      `どの秘密鍵でも復号できない登録が ${unreadable} 件あります。AUTH_PREVIOUS_SECRETS を確認してください (${unreadable} enrolments no listed secret decrypts: check AUTH_PREVIOUS_SECRETS)`,
    );
    process.exitCode = 1;
  }
} finally {
  await orm.close(true);
}
