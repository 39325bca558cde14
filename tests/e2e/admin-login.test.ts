import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_NAV } from '../../web/src/app/admin-nav.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aMember } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';
import { enrolAdmin, passTwoFactor } from '../support/two-factor-browser.ts';

const run = promisify(execFile);
let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
const ADMIN = { email: 'e2e-admin@example.jp', password: 'e2e-console-pass' };

beforeAll(async () => {
  app = await startTestServer();
  // The administrator is created the way an operator would: with the CLI.
  const cli = await run(process.execPath, ['src/cli/admin-create.ts', '--email', ADMIN.email, '--password', ADMIN.password], {
    env: { ...process.env, DATABASE_URL: app.env.databaseUrl, DATA_DIR: app.env.dataDir },
  });
  expect(cli.stdout).toContain('管理者を作成しました');
  const again = await run(process.execPath, ['src/cli/admin-create.ts', '--email', ADMIN.email, '--password', ADMIN.password], {
    env: { ...process.env, DATABASE_URL: app.env.databaseUrl, DATA_DIR: app.env.dataDir },
  });
  expect(again.stdout).toContain('既存のユーザーを管理者にしました');
  await aMember(app.runtime.deps.orm, {
    email: 'e2e-member@example.jp',
    password: 'e2e-member-pass',
    lastName: '会員',
    firstName: '花子',
    emailVerified: true,
  });
  await enrolAdmin(app.app, ADMIN);
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function signIn(page: Page, email: string, password: string) {
  await page.goto(`${app.baseUrl}/`);
  await page.waitForURL('**/login');
  await page.getByLabel('メールアドレス').fill(email);
  await page.getByLabel('パスワード').fill(password);
  const signingInAs = await page.getByLabel('メールアドレス').inputValue();
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, signingInAs);
}

describe('administrator sign-in journey (Chromium)', () => {
  it('logs in, sees the menu, follows a navigation button and logs out to /logout', async () => {
    const page = await browser.newPage();
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.waitForURL('**/admin');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('管理メニュー');
    // The menu page has no navigation bar of its own (seed §2).
    expect(await page.getByRole('navigation', { name: '管理メニュー' }).count()).toBe(0);
    expect(await page.evaluate(() => sessionStorage.getItem('auth.users'))).toContain(ADMIN.email);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: 'test-results/admin-menu.png', fullPage: true });

    await page.getByRole('link', { name: 'ユーザー一覧' }).click();
    await page.waitForURL('**/admin/users');
    const nav = page.getByRole('navigation', { name: '管理メニュー' });
    await nav.waitFor();
    // The side menu: every admin screen (web/src/app/admin-nav.ts), the current one marked.
    expect(await nav.getByRole('link').allTextContents()).toEqual([
      '管理メニューのトップ',
      ...ADMIN_NAV.map((item) => item.label),
    ]);
    expect(await nav.getByRole('link', { name: 'ユーザー一覧' }).getAttribute('aria-current')).toBe('page');

    await nav.getByRole('button', { name: 'ログアウト' }).click();
    await page.waitForURL('**/logout');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('ログアウトしました');
    expect(await page.evaluate(() => sessionStorage.getItem('auth.users'))).toBeNull();
    const me = await page.evaluate(() => fetch('/api/login', { credentials: 'include' }).then((r) => r.json()));
    expect(me).toEqual({ users: [] });

    await page.goto(`${app.baseUrl}/admin`);
    await page.waitForURL('**/login?next=%2Fadmin');
    await page.close();
  });

  it('opens the queue dashboard from the menu', async () => {
    const page = await browser.newPage();
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.waitForURL('**/admin');
    await page.getByRole('link', { name: 'ジョブキュー' }).click();
    await page.waitForURL('**/admin/queues');
    await page.getByRole('main').getByRole('link', { name: '決済', exact: true }).waitFor();
    await page.close();
  });

  it('shows Japanese errors for a wrong password, and the login page is accessible', async () => {
    const page = await browser.newPage();
    await signIn(page, ADMIN.email, 'not-the-password');
    const alert = page.getByRole('alert').first();
    await alert.waitFor();
    expect(await alert.textContent()).toBe('メールアドレスまたはパスワードが正しくありません。');
    expect(page.url()).toMatch(/\/login$/);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: 'test-results/login-error.png', fullPage: true });
    await page.close();
  });

  it('keeps members out of /admin', async () => {
    const page = await browser.newPage();
    await signIn(page, 'e2e-member@example.jp', 'e2e-member-pass');
    await page.waitForURL(/\/users\//);
    await page.goto(`${app.baseUrl}/admin`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('アクセスできません');
    await page.close();
  });

  it('refuses a forged state-changing request without the CSRF header (419)', async () => {
    const page = await browser.newPage();
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.waitForURL('**/admin');
    const forged = await page.evaluate(async () => {
      const res = await fetch('/api/logout', {
        method: 'POST',
        credentials: 'include',
        headers: { 'content-type': 'text/plain' },
        body: 'x',
      });
      return { status: res.status, body: await res.json() };
    });
    expect(forged).toEqual({ status: 419, body: { message: 'CSRF token mismatch.' } });
    // Still signed in: the forged logout did nothing.
    const me = await page.evaluate(() => fetch('/api/login', { credentials: 'include' }).then((r) => r.json()));
    expect(me.users[0].email).toBe(ADMIN.email);
    await page.close();
  });
});
