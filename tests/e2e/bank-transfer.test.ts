import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aMember } from '../support/factories.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';

let shop: ShopWithStripe;
let smtp: TestSmtp;
let browser: Browser;
let licenseId: number;
const EMAIL = 'e2e-transfer@example.jp';
const LICENSE = 'MCLS 多数傷病者対応ライセンス';

beforeAll(async () => {
  smtp = await startSmtp();
  shop = await startShopWithStripe({ smtpUrl: smtp.url });
  licenseId = (
    await createLicense(
      shop.runtime.deps.orm,
      shop.runtime.deps.files,
      { id: 'test', email: 'test' },
      { name: LICENSE, description: '多数傷病者への対応を学びます。', price: 16500 },
      [],
    )
  ).id;
  await aMember(shop.runtime.deps.orm, {
    email: EMAIL,
    password: 'e2e-transfer-pass',
    lastName: '振込',
    firstName: '四郎',
    emailVerified: true,
    affiliation: 4,
    affiliationName: '〇〇市消防局',
  });
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await shop?.stop();
  await smtp?.close();
});

async function fitsThePhone(page: Page, name: string) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth), name).toBeLessThanOrEqual(375);
  expect(await axeViolations(page), name).toEqual([]);
}

describe('銀行振込 on a 375 px phone in Chromium', () => {
  it('the member chooses 銀行振込, reads the account on the thanks page and the order page, then the transfer makes the sale', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 800 }, isMobile: true, hasTouch: true });
    page.setDefaultTimeout(20_000);
    await page.goto(`${shop.baseUrl}/login`);
    await page.getByLabel('メールアドレス').fill(EMAIL);
    await page.getByLabel('パスワード').fill('e2e-transfer-pass');
    await page.getByRole('button', { name: 'ログインする' }).click();
    await page.waitForURL(/\/users\//);

    await page.goto(`${shop.baseUrl}/licenses/${licenseId}/procedure`);
    await page.getByRole('button', { name: 'お支払いへ進む' }).click();
    await page.waitForURL(`${shop.stripeUrl}/c/pay/**`);
    await page.getByRole('button', { name: '銀行振込' }).click();
    await page.waitForURL(`**/licenses/${licenseId}/complete?session_id=*`);
    await page.getByRole('heading', { name: '銀行振込でのお支払いをお待ちしています' }).waitFor({ timeout: 45_000 });
    const sessionId = new URL(page.url()).searchParams.get('session_id') as string;
    const main = (await page.locator('main').textContent()) ?? '';
    expect(main).toContain('テスト銀行');
    expect(main).toContain('¥16,500');
    expect(main).toMatch(/LS-\d{4}-[0-9A-Z]{6}/);
    await fitsThePhone(page, 'thanks page, bank transfer');

    await page.getByRole('link', { name: 'ご注文の内容を見る' }).click();
    await page.waitForURL(/\/orders\/LS-/);
    await page.getByRole('heading', { name: 'お振込先' }).waitFor();
    const order = (await page.locator('main').textContent()) ?? '';
    expect(order).toContain('お振込待ち');
    expect(order).toContain('銀行振込');
    expect(order).toContain('Stripe');
    expect(order).toContain('うち消費税10% ¥1,500');
    expect(await page.getByRole('link', { name: '御請求書を表示する（PDF）' }).getAttribute('href')).toMatch(
      /\/invoice\?addressee=organisation$/,
    );
    await fitsThePhone(page, 'order page, awaiting transfer');

    // The licence's page and the procedure page on load speak of お振込 (not a konbini voucher) and lead to the account.
    await page.goto(`${shop.baseUrl}/licenses/${licenseId}`);
    const detail = page.getByRole('status').filter({ hasText: 'お振込待ち' });
    await detail.waitFor();
    expect(await detail.textContent()).toContain('銀行振込でのお支払いをお待ちしています');
    expect(await detail.getByRole('link', { name: 'ご注文の内容（お振込先）を見る' }).getAttribute('href')).toMatch(
      /\/orders\/LS-/,
    );
    await fitsThePhone(page, 'licence page, transfer awaited');
    await page.goto(`${shop.baseUrl}/licenses/${licenseId}/procedure`);
    const held = page.getByRole('status').filter({ hasText: 'お支払い待ち（銀行振込）' });
    await held.waitFor();
    const heldText = (await held.textContent()) ?? '';
    expect(heldText).toContain('お振り込みください');
    expect(heldText).not.toContain('お支払い番号');
    expect(await page.getByRole('button', { name: 'お支払いへ進む' }).isDisabled()).toBe(true);
    await fitsThePhone(page, 'procedure page, transfer awaited');
    await page.getByRole('link', { name: 'ご注文の内容（お振込先）を見る' }).click();
    await page.waitForURL(/\/orders\/LS-/);
    await page.getByRole('heading', { name: 'お振込先' }).waitFor();

    // A second tab stays on the thanks page. Neither is reloaded: both turn to paid when the webhook
    // comes, and say so in their polite live region.
    const thanks = await browser.newPage({ viewport: { width: 375, height: 800 }, isMobile: true, hasTouch: true });
    await thanks.context().addCookies(await page.context().cookies());
    await thanks.goto(`${shop.baseUrl}/licenses/${licenseId}/complete?session_id=${sessionId}`);
    await thanks.getByRole('heading', { name: '銀行振込でのお支払いをお待ちしています' }).waitFor({ timeout: 20_000 });
    await fetch(`${shop.stripeUrl}/_emulator/sessions/${sessionId}/bank-transfer/paid`, { method: 'POST' });
    await page.getByText('お支払い済み（登録準備中）').first().waitFor({ timeout: 30_000 });
    await page.getByRole('heading', { name: '領収書' }).waitFor();
    const announced = page.locator('[data-payment-settled]');
    expect(await announced.getAttribute('aria-live')).toBe('polite');
    expect(await announced.textContent()).toBe('お支払いを確認しました。ご注文はお支払い済みになりました。');
    await fitsThePhone(page, 'order page, paid');
    await thanks.getByRole('heading', { name: 'ご購入ありがとうございます' }).waitFor({ timeout: 30_000 });
    expect(await thanks.locator('[data-payment-settled]').textContent()).toBe(
      'お支払いを確認しました。ご購入ありがとうございます。',
    );
    await fitsThePhone(thanks, 'thanks page, paid while open');
    await thanks.close();

    await page.getByRole('link', { name: '購入履歴へ戻る' }).click();
    await page.locator('tr', { hasText: LICENSE }).getByRole('link', { name: /LS-/ }).waitFor();
  }, 120_000);
});
