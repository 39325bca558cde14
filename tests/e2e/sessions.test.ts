import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aMember } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';

// Issue 20, items 4 and 6 in Chromium: two sessions of one member, one ended from the other; /logout
// opened directly really signs out.
let app: Awaited<ReturnType<typeof startTestServer>>;
let smtp: TestSmtp;
let browser: Browser;
const PASSWORD = 'sessions-pass-123';
const PHONE = { viewport: { width: 375, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';

async function member(email: string) {
  const user = await aMember(app.runtime.deps.orm, {
    email,
    password: PASSWORD,
    lastName: '端末',
    firstName: '確認',
    emailVerified: true,
    affiliation: 1,
    affiliationName: 'デモ市消防局',
  });
  return user.id;
}

async function signIn(context: BrowserContext, email: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill(email);
  await page.getByLabel('パスワード').fill(PASSWORD);
  await page.getByRole('button', { name: 'ログインする' }).click();
  await page.waitForURL(/\/users\/[0-9a-f-]{36}$/);
  return page;
}

const signedIn = async (page: Page) => {
  const res = await page.request.get(`${app.baseUrl}/api/login`);
  return ((await res.json()).users as unknown[]).length > 0;
};

beforeAll(async () => {
  smtp = await startSmtp();
  app = await startTestServer({ smtpUrl: smtp.url });
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await smtp?.close();
});

describe('ログイン中の端末 on the account page', () => {
  it('shows both sessions of a member with browser and OS in Japanese, and ends the phone’s from the PC at 375 px', async () => {
    const id = await member('two-sessions@example.jp');
    const pcContext = await browser.newContext(PHONE);
    const phoneContext = await browser.newContext({ ...PHONE, userAgent: IPHONE_UA });
    try {
      const pc = await signIn(pcContext, 'two-sessions@example.jp');
      const phone = await signIn(phoneContext, 'two-sessions@example.jp');

      // The sign-in notice links straight to this list.
      const notice = await smtp.waitFor((m) => smtp.to('two-sessions@example.jp')(m) && (m.text ?? '').includes('Safari（iOS）'));
      expect(notice.text).toContain(`/users/${id}#sessions`);

      // Opened from the notice's link (a fresh load: the PC's page predates the phone's sign-in).
      await pc.goto(`${app.baseUrl}/users/${id}#sessions`);
      await pc.reload();
      const list = pc.locator('#sessions');
      await list.getByRole('heading', { name: 'ログイン中の端末' }).waitFor();
      const items = list.locator('.session-item');
      await expect.poll(() => items.count()).toBe(2);
      const here = items.filter({ hasText: 'この端末' });
      expect(await here.textContent()).toContain('Chrome（');
      const other = items.filter({ hasText: 'Safari（iOS）' });
      expect(await other.textContent()).toContain('IPアドレス');
      expect(await axeViolations(pc)).toEqual([]);
      // Nothing is wider than the phone.
      expect(await pc.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

      await other.getByRole('button', { name: 'ログアウトさせる' }).click();
      await list.getByText('選択した端末をログアウトさせました。').waitFor();
      await expect.poll(() => items.count()).toBe(1);
      expect(await list.getByText('ほかにログイン中の端末はありません。').count()).toBe(1);

      // The phone is signed out at its next request; the PC is not.
      expect(await signedIn(phone)).toBe(false);
      await phone.goto(`${app.baseUrl}/users/${id}`);
      await phone.waitForURL('**/login**');
      expect(await signedIn(pc)).toBe(true);
      expect(await axeViolations(pc)).toEqual([]);
    } finally {
      await pcContext.close();
      await phoneContext.close();
    }
  });

  it('asks for the current password before the e-mail address changes', async () => {
    const id = await member('change-mail@example.jp');
    const context = await browser.newContext();
    try {
      const page = await signIn(context, 'change-mail@example.jp');
      await page.goto(`${app.baseUrl}/users/${id}/edit`);
      await page.getByLabel('メールアドレス', { exact: true }).fill('changed-mail@example.jp');
      await page.getByLabel('メールアドレス（確認）').fill('changed-mail@example.jp');
      // The profile form asks for フリガナ (a member registered before it has none yet).
      await page.getByLabel('セイ', { exact: true }).fill('ヘンコウ');
      await page.getByLabel('メイ', { exact: true }).fill('メール');
      await page.getByRole('button', { name: '確認画面へ進む' }).click();
      await page.waitForURL('**/edit/confirm');
      await page.getByLabel('現在のパスワード').fill('not-the-password');
      await page.getByRole('button', { name: '保存する' }).click();
      await page.getByText('現在のパスワードが正しくありません。').first().waitFor();
      expect(await axeViolations(page)).toEqual([]);
      await page.getByLabel('現在のパスワード').fill(PASSWORD);
      await page.getByRole('button', { name: '保存する' }).click();
      await page.waitForURL(`**/users/${id}`);
      await page.getByText('確認メールを送信しました', { exact: false }).waitFor();
    } finally {
      await context.close();
    }
  });
});

describe('/logout opened directly', () => {
  it('signs out (POST with the CSRF token), then offers the sign-in link', async () => {
    const id = await member('direct-logout@example.jp');
    const context = await browser.newContext();
    try {
      const page = await signIn(context, 'direct-logout@example.jp');
      const posts: string[] = [];
      page.on('request', (r) => {
        if (r.url().endsWith('/api/logout')) posts.push(`${r.method()} ${r.headers()['x-xsrf-token'] ? 'csrf' : 'no-csrf'}`);
      });
      await page.goto(`${app.baseUrl}/logout`);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('ログアウトしました');
      expect(posts).toEqual(['POST csrf']);
      expect(await signedIn(page)).toBe(false);
      expect(await axeViolations(page)).toEqual([]);
      // The session is gone on the server, not only in this browser.
      const rows = await app.runtime.deps.orm.em.fork().execute('select 1 from sessions where user_id = ?', [id]);
      expect(rows).toHaveLength(0);
      await page.getByRole('link', { name: 'ログイン画面へ' }).click();
      await page.waitForURL('**/login');
      // The member pages now lead to sign-in.
      await page.goto(`${app.baseUrl}/users/${id}`);
      await page.waitForURL('**/login**');
    } finally {
      await context.close();
    }
  });

  it('the menu’s ログアウト still signs out once and lands on the same page', async () => {
    await member('menu-logout@example.jp');
    const context = await browser.newContext();
    try {
      const page = await signIn(context, 'menu-logout@example.jp');
      let posts = 0;
      page.on('request', (r) => {
        if (r.url().endsWith('/api/logout')) posts++;
      });
      await page.getByRole('navigation', { name: '会員メニュー' }).getByRole('button', { name: 'ログアウト' }).click();
      await page.waitForURL('**/logout');
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('ログアウトしました');
      expect(posts).toBe(1);
      expect(await signedIn(page)).toBe(false);
    } finally {
      await context.close();
    }
  });
});
