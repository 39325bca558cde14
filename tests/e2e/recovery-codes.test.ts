import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aMember } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';
import { freshCode } from '../support/two-factor.ts';

// Issue 30 item 10 in Chromium: the otpauth:// link on a phone, and keeping the recovery codes
// (copy, save as text, print), then signing in with one typed in lower case without its hyphen.
let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
const PASSWORD = 'lantern-orchard-5521';

beforeAll(async () => {
  app = await startTestServer();
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function signIn(page: Page, email: string) {
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill(email);
  await page.getByLabel('パスワード').fill(PASSWORD);
  await page.getByRole('button', { name: 'ログインする' }).click();
}

/** Enrols the signed-in member on /account/security; the secret shown for manual entry. */
async function enrol(page: Page): Promise<string> {
  await page.goto(`${app.baseUrl}/account/security`);
  await page.getByLabel('現在のパスワード').fill(PASSWORD);
  await page.getByRole('button', { name: '設定を始める' }).click();
  return ((await page.locator('.totp-secret').textContent()) ?? '').trim();
}

async function phone(): Promise<BrowserContext> {
  return browser.newContext({
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    userAgent:
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
    acceptDownloads: true,
  });
}

describe('two-factor set-up and recovery codes (Chromium)', () => {
  it('offers 「認証アプリで開く」 on a phone, and copy, save and print for the codes, which sign in in any case', async () => {
    const email = `rc-${Date.now()}@example.jp`;
    await aMember(app.runtime.deps.orm, { email, password: PASSWORD, lastName: '復旧', firstName: '花子', emailVerified: true });
    const context = await phone();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.baseUrl });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await signIn(page, email);
    await page.waitForURL('**/users/*');
    const secret = await enrol(page);
    const open = page.getByRole('link', { name: '認証アプリで開く' });
    expect(await open.getAttribute('href')).toMatch(new RegExp(`^otpauth://totp/.*secret=${secret}`));
    expect(await axeViolations(page)).toEqual([]);

    await page.getByLabel('確認コード').fill(await freshCode(secret));
    await page.getByRole('button', { name: '有効にする' }).click();
    await page.locator('.recovery-codes code').first().waitFor();
    const codes = (await page.locator('.recovery-codes code').allTextContents()).map((c) => c.trim());
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(/^[A-HJKMNP-Z2-9]{5}-[A-HJKMNP-Z2-9]{5}$/);
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'コピー', exact: true }).click();
    await page.getByText('リカバリーコードをコピーしました。').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(codes.join('\n'));

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'テキストで保存' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('recovery-codes.txt');
    const saved = readFileSync((await download.path()) as string, 'utf8');
    expect(saved).toContain('二段階認証のリカバリーコード');
    for (const code of codes) expect(saved).toContain(code);

    // Printing asks the browser's print dialog, with only the codes on the page while it is open.
    await page.evaluate(() => {
      const w = window as unknown as { printedOnlyCodes?: boolean };
      window.print = () => {
        w.printedOnlyCodes = document.body.classList.contains('printing-recovery-codes');
      };
    });
    await page.getByRole('button', { name: '印刷' }).click();
    expect(await page.evaluate(() => (window as unknown as { printedOnlyCodes?: boolean }).printedOnlyCodes)).toBe(true);
    await page.getByRole('button', { name: '保存しました' }).click();
    await page.getByText('二段階認証は').first().waitFor();

    // A code typed in lower case without its hyphen signs in.
    await context.clearCookies();
    await signIn(page, email);
    await page.getByRole('button', { name: '認証アプリを使えない場合（リカバリーコードを使う）' }).click();
    await page.getByLabel('リカバリーコード').fill((codes[0] as string).toLowerCase().replace('-', ''));
    await page.getByRole('button', { name: '確認してログインする' }).click();
    await page.waitForURL('**/users/*');
    await context.close();
  }, 120_000);

  it('shows no otpauth:// button on a desktop browser', async () => {
    const email = `rc-desk-${Date.now()}@example.jp`;
    await aMember(app.runtime.deps.orm, { email, password: PASSWORD, lastName: '机上', firstName: '太郎', emailVerified: true });
    const page = await browser.newPage();
    await signIn(page, email);
    await page.waitForURL('**/users/*');
    await enrol(page);
    await page.getByAltText('認証アプリ登録用のQRコード').waitFor();
    expect(await page.getByRole('link', { name: '認証アプリで開く' }).count()).toBe(0);
    await page.close();
  }, 60_000);
});
