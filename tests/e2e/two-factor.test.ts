import type { Browser, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { confirmInDialog } from '../support/confirm-dialog.ts';
import { freePort } from '../support/ports.ts';
import { startTestServer } from '../support/server.ts';
import { secondFactor } from '../support/two-factor.ts';
import { listed, passTwoFactor } from '../support/two-factor-browser.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
let origin: string;
const ADMIN = { email: 'e2e-tf-admin@example.jp', password: 'e2e-tf-admin-pass' };

beforeAll(async () => {
  // WebAuthn needs a domain, not an IP address: the shop is reached as localhost.
  const port = await freePort();
  origin = `http://localhost:${port}`;
  app = await startTestServer({ port, env: { APP_URL: origin } });
  await createOrPromoteAdmin(app.runtime.deps.orm, ADMIN);
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function signIn(page: Page) {
  await page.goto(`${origin}/login`);
  await page.getByLabel('メールアドレス').fill(ADMIN.email);
  await page.getByLabel('パスワード').fill(ADMIN.password);
  await page.getByRole('button', { name: 'ログインする' }).click();
}

/** The DevTools virtual authenticator: a platform authenticator with user verification, always present. */
async function virtualAuthenticator(page: Page): Promise<CDPSession> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return cdp;
}

describe('two-factor and passkeys (Chromium)', () => {
  it('takes an administrator without two-factor to enrolment, then signs in with a passkey', async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await signIn(page);
    await page.waitForURL('**/account/security?enrol=1');
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('管理者は二段階認証の設定が必要です');
    // The back office sends them back here until they enrol.
    await page.goto(`${origin}/admin`);
    await page.waitForURL('**/account/security?enrol=1');
    expect(await axeViolations(page)).toEqual([]);

    expect(await passTwoFactor(page, ADMIN.email, ADMIN.password)).toBe('enrolled');
    await expect.poll(() => page.getByText('二段階認証は有効です').count()).toBe(1);
    await page.getByRole('link', { name: '管理メニューへ' }).click();
    await page.waitForURL('**/admin');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('管理メニュー');

    // Register a passkey from the account page.
    await page.goto(`${origin}/account/security`);
    await virtualAuthenticator(page);
    await page.getByLabel('パスキーの名前（任意）').fill('テスト端末');
    await page.getByRole('button', { name: 'パスキーを登録する' }).click();
    // Adding a passkey asks for the password and, two-factor being on, a code (or a recovery code).
    const reauth = page.getByRole('dialog', { name: '本人確認' });
    await reauth.getByLabel('現在のパスワード').fill(ADMIN.password);
    const answer = await secondFactor(ADMIN.email);
    await reauth.getByLabel('確認コードまたはリカバリーコード').fill('code' in answer ? answer.code : answer.recovery_code);
    expect(await axeViolations(page)).toEqual([]);
    await reauth.getByRole('button', { name: '確認して登録する' }).click();
    await listed(page, 'テスト端末');
    expect(await axeViolations(page)).toEqual([]);
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(scrollWidth).toBeLessThanOrEqual(375);

    // Signed out, the passkey alone signs the administrator in: no code asked, the back office opens.
    await context.clearCookies();
    await page.goto(`${origin}/login`);
    await page.getByRole('button', { name: 'パスキーでログイン' }).click();
    await page.waitForURL('**/admin');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('管理メニュー');
    const users = await page.evaluate(() => fetch('/api/users').then((r) => r.status));
    expect(users).toBe(200);

    // The password sign-in asks for the code, which the page takes.
    await context.clearCookies();
    await signIn(page);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent(), { timeout: 10_000 }).toBe('二段階認証');
    expect(await page.getByLabel('この端末を30日間信頼する').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    expect(await passTwoFactor(page, ADMIN.email, ADMIN.password)).toBe('code');
    await page.waitForURL('**/admin');

    // Remove the passkey again.
    await page.goto(`${origin}/account/security`);
    await page.getByRole('button', { name: '削除' }).click();
    expect(await confirmInDialog(page)).toContain('パスキー「');
    await expect.poll(() => page.getByText('登録済みのパスキーはありません。').count()).toBe(1);
    await context.close();
  }, 120_000);
});
