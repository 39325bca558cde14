import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aMember } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let smtp: TestSmtp;
let browser: Browser;
let licenseId: number;
let seq = 0;
const PASSWORD = 'return-pass-123';

async function member(lastName = '戻先') {
  const email = `return-${++seq}-${Date.now()}@example.jp`;
  const user = await aMember(app.runtime.deps.orm, {
    email,
    password: PASSWORD,
    lastName,
    firstName: '花子',
    emailVerified: true,
    affiliation: 4,
    affiliationName: '〇〇市消防局',
  });
  return { id: user.id, email };
}

beforeAll(async () => {
  smtp = await startSmtp();
  app = await startTestServer({ smtpUrl: smtp.url });
  browser = await launchBrowser();
  const license = await createLicense(
    app.runtime.deps.orm,
    app.runtime.deps.files,
    { id: 'test', email: 'test' },
    { name: 'ICLS 心肺蘇生ライセンス', description: '心肺蘇生を学びます。', price: 11000 },
    [],
  );
  licenseId = license.id;
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await smtp?.close();
});

const heading = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();
async function expectAccessible(page: Page, name: string) {
  expect(await axeViolations(page), name).toEqual([]);
}
async function signIn(page: Page, email: string, password = PASSWORD) {
  await page
    .getByLabel('メールアドレス')
    .waitFor({ timeout: 5000 })
    .catch(async (e) => {
      throw new Error(`${page.url()}\n${await page.locator('body').innerText()}\n${e}`);
    });
  await page.getByLabel('メールアドレス').fill(email);
  await page.getByLabel('パスワード').fill(password);
  await page.getByRole('button', { name: 'ログインする' }).click();
}

describe('sign-in returns where the member was going (Chromium)', () => {
  it('deep link → /login?next= → signed in, lands on the licence', async () => {
    const m = await member();
    const page = await browser.newPage();
    await page.goto(`${app.baseUrl}/licenses/${licenseId}`);
    await page.waitForURL(`**/login?next=%2Flicenses%2F${licenseId}`);
    expect(await heading(page)).toBe('ログイン');
    await page.getByText('ログインすると、開こうとしていたページに戻ります。').waitFor();
    await expectAccessible(page, 'login with next');
    await signIn(page, m.email);
    await page.waitForURL(`${app.baseUrl}/licenses/${licenseId}`);
    await page.getByText('ICLS 心肺蘇生ライセンス').first().waitFor();

    // Signed in, the sign-in and registration pages send the member on, home or to `next`.
    await page.goto(`${app.baseUrl}/login`);
    await page.waitForURL(`${app.baseUrl}/users/${m.id}`);
    await page.goto(`${app.baseUrl}/users/registration`);
    await page.waitForURL(`${app.baseUrl}/users/${m.id}`);
    await page.goto(`${app.baseUrl}/users/registration/confirm`);
    await page.waitForURL(`${app.baseUrl}/users/${m.id}`);
    await page.goto(`${app.baseUrl}/login?next=${encodeURIComponent(`/licenses/${licenseId}`)}`);
    await page.waitForURL(`${app.baseUrl}/licenses/${licenseId}`);
    await page.close();
  });

  it.each([
    '//evil.example/licenses',
    'https://evil.example/',
    '/\\evil.example',
    '%2F%2Fevil.example',
    '/%2F%2Fevil.example',
    // Only leave the site once dot-segments are resolved (the attack round's V3.7.2 finding).
    '/.//evil.example/x',
    '/x/..//evil.example',
    '/%2e%2e//evil.example',
  ])('refuses next=%s and goes home instead', async (next) => {
    const m = await member();
    const page = await browser.newPage();
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    await page.goto(`${app.baseUrl}/login?next=${encodeURIComponent(next)}`);
    expect(await page.getByText('ログインすると、開こうとしていたページに戻ります。').count()).toBe(0);
    await signIn(page, m.email);
    await page.waitForURL(`${app.baseUrl}/users/${m.id}`);
    expect(requested.filter((url) => !url.startsWith(app.baseUrl))).toEqual([]);
    await page.close();
  });
});

describe('reset link with the address (Chromium)', () => {
  it('prefills the address, and a different one is told so on its field (not as an expired link)', async () => {
    const m = await member('再設定');
    const page = await browser.newPage();
    await page.goto(`${app.baseUrl}/forgot-password`);
    await page.getByLabel('メールアドレス').fill(m.email);
    await page.getByRole('button', { name: '再設定メールを送信する' }).click();
    const mail = await smtp.waitFor((x) => smtp.to(m.email)(x) && x.subject === '【ライセンスストア】パスワード再設定のご案内');
    const link = /http:\/\/127\.0\.0\.1:\d+(\/reset-password\/[\w-]+\?email=[^\s]+)/.exec(mail.text ?? '')?.[1];
    expect(link, mail.text).toBeDefined();
    await page.goto(`${app.baseUrl}${link}`);
    expect(await page.getByLabel('メールアドレス').inputValue()).toBe(m.email);
    await expectAccessible(page, 'reset prefilled');

    await page.getByLabel('メールアドレス').fill(`typo-${m.email}`);
    await page.getByLabel('新しいパスワード（8〜72文字）').fill('reset-pass-456');
    await page.getByLabel('新しいパスワード（確認）').fill('reset-pass-456');
    await page.getByRole('button', { name: 'パスワードを再設定する' }).click();
    await page.getByText('再設定のご案内をお送りしたメールアドレスと一致しません', { exact: false }).first().waitFor();
    expect(await page.getByText('有効期限が切れています', { exact: false }).count()).toBe(0);
    await expectAccessible(page, 'reset mismatch');

    // Corrected, the same link still works.
    await page.getByLabel('メールアドレス').fill(m.email);
    await page.getByRole('button', { name: 'パスワードを再設定する' }).click();
    await page.getByText('パスワードを再設定しました。', { exact: false }).waitFor();
    await page.getByRole('link', { name: 'ログイン画面へ' }).click();
    await signIn(page, m.email, 'reset-pass-456');
    await page.waitForURL(`${app.baseUrl}/users/${m.id}`);
    await page.close();
  });
});

describe('退会 (Chromium)', () => {
  it('explains what goes and what stays, refuses a wrong password, then signs the member out for good', async () => {
    const m = await member('退会');
    const page = await browser.newPage({ viewport: { width: 375, height: 740 } });
    await page.goto(`${app.baseUrl}/login`);
    await signIn(page, m.email);
    await page.waitForURL(`${app.baseUrl}/users/${m.id}`);
    await page.getByRole('link', { name: '退会する（アカウントの削除）' }).click();
    await page.waitForURL(`**/users/${m.id}/withdraw`);
    await page.getByRole('heading', { level: 1, name: '退会', exact: true }).waitFor();
    expect(await heading(page)).toBe('退会');
    await page.getByRole('heading', { name: '削除される情報' }).waitFor();
    await page.getByRole('heading', { name: '保管される情報' }).waitFor();
    expect(await page.locator('main').textContent()).toContain('ご購入の記録');
    await expectAccessible(page, 'withdraw at 375 px');
    await page.screenshot({ path: 'test-results/withdraw.png', fullPage: true });

    await page.getByLabel('現在のパスワード').fill('not-my-password');
    await page.getByRole('button', { name: '退会する' }).click();
    await page.getByText('パスワードが正しくありません。').first().waitFor();
    await expectAccessible(page, 'withdraw wrong password');

    await page.getByLabel('現在のパスワード').fill(PASSWORD);
    await page.getByRole('button', { name: '退会する' }).click();
    await page.getByRole('heading', { name: '退会の手続きが完了しました' }).waitFor();
    await expectAccessible(page, 'withdrawn');
    await smtp.waitFor((x) => smtp.to(m.email)(x) && x.subject === '【ライセンスストア】退会手続き完了のお知らせ');

    // The member's pages now ask for a sign-in, which no longer works.
    await page.goto(`${app.baseUrl}/users/${m.id}`);
    await page.waitForURL(`**/login?next=${encodeURIComponent(`/users/${m.id}`)}`);
    await signIn(page, m.email);
    await page.getByText('メールアドレスまたはパスワードが正しくありません。').first().waitFor();
    await page.close();
  });
});
