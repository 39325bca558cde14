import type { Page } from 'playwright-core';
import { TestClient } from './http-client.ts';
import { freshCode, rememberSecret, secondFactor, secretOf } from './two-factor.ts';

/** Enrols an administrator through the API (the secret is remembered for the code step of later sign-ins). */
export async function enrolAdmin(app: unknown, admin: { email: string; password: string }): Promise<void> {
  const res = await new TestClient(app, '10.250.0.1').login(admin.email, admin.password);
  if (res.status !== 200) throw new Error(`enrolAdmin: ${res.status} ${await res.text()}`);
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
