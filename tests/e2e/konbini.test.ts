import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aMember } from '../support/factories.ts';
import { png } from '../support/images.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';

let shop: ShopWithStripe;
let smtp: TestSmtp;
let browser: Browser;
let licenseId: number;
const EMAIL = 'e2e-konbini@example.jp';
const LICENSE = 'ICLS 心肺蘇生講習ライセンス';

beforeAll(async () => {
  smtp = await startSmtp();
  shop = await startShopWithStripe({ smtpUrl: smtp.url });
  const license = await createLicense(
    shop.runtime.deps.orm,
    shop.runtime.deps.files,
    { id: 'test', email: 'test' },
    { name: LICENSE, description: '心肺蘇生と AED を学びます。', price: 13200 },
    [{ field: 'file[0]', filename: 'icls.png', data: await png() }],
  );
  licenseId = license.id;
  await aMember(shop.runtime.deps.orm, {
    email: EMAIL,
    password: 'e2e-konbini-pass',
    lastName: '救急',
    firstName: '三郎',
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

/** As the SPA shows dates: Japan time, 2026/11/25 23:59. */
const shown = (iso: string) =>
  new Intl.DateTimeFormat('ja-JP', {
    timeZone: 'Asia/Tokyo',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  }).format(new Date(iso));

/** Nothing wider than the phone, and axe finds nothing (axeViolations also reports sideways overflow). */
async function fitsThePhone(page: Page, name: string) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth), name).toBeLessThanOrEqual(375);
  expect(await axeViolations(page), name).toEqual([]);
}

describe('konbini purchase on a 375 px phone in Chromium', () => {
  it('the member pays by konbini on the hosted page and finds the payment number and deadline on the complete page, in the history and in a mail', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 800 }, isMobile: true, hasTouch: true });
    // The worker makes the voucher and the sale a moment later; on a busy machine give it time.
    page.setDefaultTimeout(20_000);
    await page.goto(`${shop.baseUrl}/login`);
    await page.getByLabel('メールアドレス').fill(EMAIL);
    await page.getByLabel('パスワード').fill('e2e-konbini-pass');
    await page.getByRole('button', { name: 'ログインする' }).click();
    await page.waitForURL(/\/users\//);
    const userPath = new URL(page.url()).pathname;

    await page.goto(`${shop.baseUrl}/licenses/${licenseId}/procedure`);
    await page.getByRole('button', { name: 'お支払いへ進む' }).click();
    await page.waitForURL(`${shop.stripeUrl}/c/pay/**`);
    await page.getByRole('button', { name: 'コンビニ払い' }).click();

    await page.waitForURL(`**/licenses/${licenseId}/complete?session_id=*`);
    await page
      .getByRole('heading', { name: 'コンビニでのお支払いをお待ちしています' })
      .waitFor({ timeout: 45_000 })
      .catch(async (error) => {
        await page.screenshot({ path: 'test-results/konbini-complete-missing.png', fullPage: true });
        throw new Error(`${error}\n${await page.locator('main').textContent()}`);
      });
    const sessionId = new URL(page.url()).searchParams.get('session_id') as string;
    const pi = shop.emulator.paymentIntents.get(String(shop.emulator.sessions.get(sessionId)?.payment_intent)) as {
      next_action: {
        konbini_display_details: {
          expires_at: number;
          hosted_voucher_url: string;
          stores: Record<string, { payment_code: string; confirmation_number: string }>;
        };
      };
    };
    const details = pi.next_action.konbini_display_details;
    const code = details.stores.lawson?.payment_code as string;
    const confirmation = details.stores.lawson?.confirmation_number as string;
    const deadline = shown(new Date(details.expires_at * 1000).toISOString());

    await page.getByText(code, { exact: true }).waitFor();
    const complete = (await page.locator('main').textContent()) ?? '';
    expect(complete).toContain(confirmation);
    expect(complete).toContain(`${deadline}（日本時間）`);
    // 総額表示: the amount to pay, tax included, beside the deadline.
    expect(complete).toContain('お支払い金額¥13,200（税込）');
    expect(complete).toContain('ファミリーマート・ローソン・ミニストップ・セイコーマート');
    expect(await page.getByRole('link', { name: /払込票/ }).getAttribute('href')).toBe(details.hosted_voucher_url);
    await fitsThePhone(page, 'complete page');
    await page.screenshot({ path: 'test-results/konbini-complete-375.png', fullPage: true });

    await page.getByRole('link', { name: '購入履歴を見る' }).click();
    await page.waitForURL(`**${userPath}`);
    const row = page.locator('tr', { hasText: LICENSE });
    await row.getByText('お支払い待ち').waitFor();
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('¥13,200（税込）');
    expect(text).toContain(`お支払い番号 ${code}`);
    expect(text).toContain(`お支払い金額 ¥13,200（税込）`);
    expect(text).toContain(`お支払い期限 ${deadline}（日本時間）`);
    expect(text).not.toContain('出力待ち');
    expect(await row.getByRole('link', { name: '払込票を開く' }).getAttribute('href')).toBe(details.hosted_voucher_url);
    await fitsThePhone(page, 'history with a pending konbini order');
    await page.screenshot({ path: 'test-results/konbini-history-375.png', fullPage: true });

    const mail = await smtp.waitFor(smtp.to(EMAIL));
    expect(mail.subject).toBe('【ライセンスストア】コンビニでのお支払い番号のご案内');
    expect(mail.text).toContain(`お支払い番号 ${code}`);
    expect(mail.text).toContain(details.hosted_voucher_url);

    // The voucher page itself, as the member opens it from the link.
    await page.goto(details.hosted_voucher_url);
    await page.getByRole('heading', { name: 'コンビニ払い お支払い番号' }).waitFor();
    expect(await page.textContent('body')).toContain(code);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

    // Paid at the counter: the history says so in the member's words.
    shop.emulator.settleKonbini(sessionId, true);
    await page.goto(`${shop.baseUrl}${userPath}`);
    await expectEventuallyInRow(page, 'お支払い済み（登録準備中）');
    expect(await page.locator('tr', { hasText: 'お支払い待ち' }).count()).toBe(0);
    await fitsThePhone(page, 'history with the paid order');
    await page.close();
  }, 180_000);
});

/** The sale is made by the worker a moment after the payment: reload until the row shows `label`. */
async function expectEventuallyInRow(page: Page, label: string) {
  const deadline = Date.now() + 45_000;
  let seen = '';
  while (Date.now() < deadline) {
    const row = page.locator('tr', { hasText: LICENSE }).first();
    seen =
      (await row.waitFor({ timeout: 5_000 }).then(
        () => row.textContent(),
        () => null,
      )) ?? '';
    if (seen.includes(label)) return;
    await page.waitForTimeout(500);
    await page.reload();
  }
  await page.screenshot({ path: 'test-results/konbini-history-missing.png', fullPage: true });
  throw new Error(`the history never showed ${label} (last row: ${seen || 'none'})`);
}
