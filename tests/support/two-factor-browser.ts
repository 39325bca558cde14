import type { Page } from 'playwright-core';
import type { Orm } from '../../src/db/orm.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { TestClient } from './http-client.ts';
import { freshCode, rememberSecret, secondFactor, secretOf } from './two-factor.ts';

interface Account {
  email: string;
  password: string;
}

/** Enrols an administrator through the API (the secret is remembered for the code step of later sign-ins). */
export async function enrolAdmin(app: unknown, admin: Account): Promise<void> {
  const res = await new TestClient(app, '10.250.0.1').login(admin.email, admin.password);
  if (res.status !== 200) throw new Error(`enrolAdmin: ${res.status} ${await res.text()}`);
}

/** An administrator with two-factor enrolled, ready for signInWithTwoFactor; returns the account with its id. */
export async function anEnrolledAdmin<A extends Account & { lastName?: string; firstName?: string }>(
  server: { app: unknown; runtime: { deps: { orm: Orm } } },
  account: A,
): Promise<A & { id: string }> {
  const { user } = await createOrPromoteAdmin(server.runtime.deps.orm, account);
  await enrolAdmin(server.app, account);
  return { ...account, id: user.id };
}

/**
 * Signs in on the browser's sign-in page and answers the two-factor step (passTwoFactor); then waits
 * for `landing` (a URL pattern) when given. A member, asked for no code, just signs in.
 */
export async function signInWithTwoFactor(page: Page, baseUrl: string, account: Account, landing?: string): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill(account.email);
  await page.getByLabel('パスワード').fill(account.password);
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, account.email, account.password);
  if (landing) await page.waitForURL(landing);
}

/**
 * After the password step of the sign-in page: an administrator without two-factor is taken to
 * enrolment (this enrols them in the page, computing the code from the shown secret); an account
 * whose secret this test file knows is asked for a code (answered). Anything else is left alone.
 */
export async function passTwoFactor(page: Page, email: string, password = ''): Promise<'enrolled' | 'code' | 'none'> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (page.url().includes('/account/security')) {
      await page.getByLabel('現在のパスワード').fill(password);
      await page.getByRole('button', { name: '設定を始める' }).click();
      const secret = (await page.locator('.totp-secret').textContent({ timeout: 10_000 }))?.trim() ?? '';
      rememberSecret(email, secret);
      await page.getByLabel('確認コード').fill(await freshCode(secret));
      await page.getByRole('button', { name: '有効にする' }).click();
      const saved = page.getByRole('button', { name: '保存しました' });
      await saved.waitFor();
      const codes = (await page.locator('.recovery-codes code').allTextContents()).map((code) => code.trim());
      rememberSecret(email, secret, codes);
      await saved.click();
      return 'enrolled';
    }
    const heading = await page
      .getByRole('heading', { level: 1 })
      .first()
      .textContent({ timeout: 200 })
      .catch(() => '');
    if (heading === '二段階認証') {
      if (!secretOf(email)) throw new Error(`no known two-factor secret for ${email}`);
      // An unused code, else a recovery code (a test signs in more often than once per 30 s).
      const answer = await secondFactor(email);
      if ('code' in answer) {
        await page.getByLabel('確認コード').fill(answer.code);
      } else {
        await page.getByRole('button', { name: '認証アプリを使えない場合（リカバリーコードを使う）' }).click();
        await page.getByLabel('リカバリーコード').fill(answer.recovery_code);
      }
      await page.getByRole('button', { name: '確認してログインする' }).click();
      return 'code';
    }
    if (!page.url().includes('/login')) return 'none';
    // A refused password stays on the sign-in page with its message.
    if ((await page.locator('[data-form-alert], .field-message').count()) > 0) return 'none';
    await page.waitForTimeout(100);
  }
  return 'none';
}

/**
 * Waits for the passkey to be listed (the password check, the authenticator and two calls take a
 * while on a loaded machine); an alert on the way fails at once with what it says.
 */
export async function listed(page: Page, name: string) {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if ((await page.getByRole('list', { name: '登録済みのパスキー' }).getByText(name).count()) > 0) return;
    const alert = page.locator('[data-form-alert]');
    if ((await alert.count()) > 0) throw new Error(`registration refused: ${await alert.first().innerText()}`);
    await page.waitForTimeout(100);
  }
  throw new Error(`passkey ${name} not listed`);
}
