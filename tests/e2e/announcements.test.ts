import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { site } from '../../src/site-settings.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { confirmInDialog } from '../support/confirm-dialog.ts';
import { aLicense, aMember } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { anEnrolledAdmin, signInWithTwoFactor } from '../support/two-factor-browser.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
let smtp: TestSmtp;
const ADMIN = { email: 'news-admin@example.jp', password: 'news-admin-pass' };

beforeAll(async () => {
  smtp = await startSmtp();
  app = await startTestServer({ smtpUrl: smtp.url });
  await anEnrolledAdmin(app, ADMIN);
  await aLicense(app.runtime.deps.orm, { name: '外傷初期対応トレーニングライセンス' });
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await smtp?.close();
});

const accessible = async (page: Page, name: string) => expect(await axeViolations(page), name).toEqual([]);

it('お知らせ配信 at 375 px: from the side menu, preview, a test to oneself, send with progress; the unsubscribe page without JavaScript', async () => {
  const member = await aMember(app.runtime.deps.orm, { email: 'reader@example.jp' });
  const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
  await signInWithTwoFactor(page, app.baseUrl, ADMIN, '**/admin');
  await page.locator('ul.menu').getByRole('link', { name: 'お知らせ配信' }).click();
  await page.waitForURL('**/admin/announcements');
  expect(await page.title()).toBe(`お知らせ配信｜${site.shopName}`);
  await page.getByText('まだお知らせを配信していません。').waitFor();
  await accessible(page, 'empty');

  // Nothing written: the fields say what is missing.
  await page.getByRole('button', { name: 'プレビュー' }).click();
  await page.locator('.field-message', { hasText: '件名を入力してください。' }).waitFor();
  await accessible(page, 'errors');

  await page.getByLabel('件名').fill('新コースのご案内');
  await page.getByLabel('本文（テキスト）').fill('春の新しいコースを公開しました。\n\nぜひご覧ください。');
  await page.getByLabel('ご案内するライセンス（任意）').selectOption({ label: '外傷初期対応トレーニングライセンス' });
  await page.getByRole('button', { name: 'プレビュー' }).click();
  const preview = page.getByRole('region', { name: 'プレビュー' });
  await preview.getByText(site.address, { exact: false }).waitFor();
  await accessible(page, 'preview');

  await page.getByRole('button', { name: '自分宛てにテスト送信' }).click();
  await page.getByText(`${ADMIN.email} 宛てにテスト送信します。`, { exact: false }).waitFor();
  await smtp.waitFor((m) => m.subject === `【${site.shopName}】［テスト送信］新コースのご案内` && smtp.to(ADMIN.email)(m));

  await page.getByRole('button', { name: '配信する' }).click();
  expect(await confirmInDialog(page)).toContain('新コースのご案内');
  await page.getByText('配信を開始しました。', { exact: false }).waitFor();
  await page.getByRole('cell', { name: '送信完了' }).waitFor({ timeout: 30_000 });
  await page.getByText('2／2件').waitFor();
  await accessible(page, 'history');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

  // The member's unsubscribe link, opened without JavaScript: a page and a button that works.
  const mail = await smtp.waitFor((m) => m.subject === `【${site.shopName}】新コースのご案内` && smtp.to(member.email)(m));
  const link = /https?:\/\/[^/\s]+(\/unsubscribe\/[A-Za-z0-9_-]+)/.exec(mail.text ?? '')?.[1] ?? '';
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 375, height: 800 } });
  const plain = await context.newPage();
  await plain.goto(`${app.baseUrl}${link}`);
  await plain.getByRole('heading', { name: 'メール配信の停止' }).waitFor();
  await plain.getByRole('button', { name: '配信を停止する' }).click();
  await plain.getByRole('heading', { name: 'メール配信を停止しました' }).waitFor();
  await context.close();
  const javascript = await browser.newPage({ viewport: { width: 375, height: 800 } });
  await javascript.goto(`${app.baseUrl}${link}`);
  await javascript.getByRole('heading', { name: 'メール配信を停止しました' }).waitFor();
  await accessible(javascript, 'unsubscribe page');
});
