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
let konbiniLicenseId: number;
const EMAIL = 'e2e-buyer@example.jp';

beforeAll(async () => {
  smtp = await startSmtp();
  shop = await startShopWithStripe({ smtpUrl: smtp.url });
  const license = await createLicense(
    shop.runtime.deps.orm,
    shop.runtime.deps.files,
    { id: 'test', email: 'test' },
    { name: 'PALS 小児二次救命処置ライセンス', description: '小児の二次救命処置を学びます。', price: 22000 },
    [{ field: 'file[0]', filename: 'pals.png', data: await png() }],
  );
  licenseId = license.id;
  konbiniLicenseId = (
    await createLicense(
      shop.runtime.deps.orm,
      shop.runtime.deps.files,
      { id: 'test', email: 'test' },
      { name: 'ICLS 心停止対応ライセンス', description: '心停止への初期対応を学びます。', price: 5500 },
      [],
    )
  ).id;
  await aMember(shop.runtime.deps.orm, {
    email: EMAIL,
    password: 'e2e-buyer-pass',
    lastName: '救命',
    firstName: '次郎',
    emailVerified: true,
    affiliation: 5,
    affiliationName: '〇〇病院',
  });
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await shop?.stop();
  await smtp?.close();
});

async function signIn(page: Page) {
  await page.goto(`${shop.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill(EMAIL);
  await page.getByLabel('パスワード').fill('e2e-buyer-pass');
  await page.getByRole('button', { name: 'ログインする' }).click();
  await page.waitForURL(/\/users\//);
}
const accessible = async (page: Page, name: string) => expect(await axeViolations(page), name).toEqual([]);

describe('purchase in Chromium', () => {
  it('a cancelled checkout returns to the procedure screen with a message', async () => {
    const page = await browser.newPage();
    await signIn(page);
    await page.goto(`${shop.baseUrl}/licenses/${licenseId}/procedure`);
    await page.getByRole('button', { name: 'お支払いへ進む' }).click();
    await page.waitForURL(`${shop.stripeUrl}/c/pay/**`);
    await page.getByRole('button', { name: 'キャンセルしてショップに戻る' }).click();
    await page.waitForURL(`**/licenses/${licenseId}/procedure?canceled=1`);
    await page.getByText('お支払いはキャンセルされました。', { exact: false }).waitFor();
    await page.close();
  });

  it('a member buys a licence on the hosted page, sees it confirmed and in the history, and gets a receipt', async () => {
    const page = await browser.newPage();
    await signIn(page);
    await page.getByRole('navigation', { name: '会員メニュー' }).getByRole('link', { name: 'ライセンス一覧' }).click();
    await page.locator('.license-card', { hasText: 'PALS' }).getByRole('link').click();
    await page.getByRole('link', { name: '購入手続きへ進む' }).click();
    await page.waitForURL(`**/licenses/${licenseId}/procedure`);
    await page.getByRole('heading', { name: 'ご購入手続き' }).waitFor();
    await page.locator('dd', { hasText: '¥22,000（税込）' }).waitFor();
    for (const term of ['お支払い方法', 'お支払い時期', 'ライセンスの提供時期', 'キャンセル・返金']) {
      expect(await page.getByText(term, { exact: true }).count(), term).toBe(1);
    }
    await accessible(page, 'procedure');
    await page.screenshot({ path: 'test-results/procedure.png', fullPage: true });
    await page.getByRole('button', { name: 'お支払いへ進む' }).click();
    await page.waitForURL(`${shop.stripeUrl}/c/pay/**`);
    expect(await page.textContent('body')).toContain('¥22,000');
    await page.screenshot({ path: 'test-results/hosted-page.png' });
    await page.getByRole('button', { name: 'カードで支払う' }).click();

    await page.waitForURL(`**/licenses/${licenseId}/complete?session_id=*`);
    await page.getByRole('heading', { name: 'ご購入ありがとうございます' }).waitFor({ timeout: 20_000 });
    // The order number to quote (docs/decisions/0030-order-numbers.md).
    const orderNumber = (await page.locator('.order-summary dd').textContent())?.trim() ?? '';
    expect(orderNumber).toMatch(/^LS-\d{4}-[0-9A-HJKMNP-TV-Z]{6}$/);
    expect(await page.locator('.order-summary dt').textContent()).toBe('ご注文番号');
    await accessible(page, 'complete');

    await page.getByRole('link', { name: '購入履歴を見る' }).click();
    const row = page.locator('table tbody tr', { hasText: 'PALS 小児二次救命処置ライセンス' });
    await row.waitFor();
    expect(await row.textContent()).toContain('¥22,000（税込）');
    expect(await row.textContent()).toContain('お支払い済み（登録準備中）');
    expect(await row.textContent()).toContain(orderNumber);
    await page.getByRole('columnheader', { name: 'ご注文番号' }).waitFor();
    await accessible(page, 'member page with history');
    await page.screenshot({ path: 'test-results/purchase-history.png', fullPage: true });

    const receipt = await smtp.waitFor((m) => smtp.to(EMAIL)(m) && m.subject?.includes('ご購入ありがとうございます') === true);
    expect(receipt.subject).toBe('【ライセンスストア】ご購入ありがとうございます');
    expect(receipt.text).toContain('PALS 小児二次救命処置ライセンス');
    expect(receipt.text).toContain(`ご注文番号：${orderNumber}`);

    // Held now: the catalogue and the detail page say 購入済み with the date, and offer no second purchase.
    const today = new Intl.DateTimeFormat('ja-JP', {
      timeZone: 'Asia/Tokyo',
      year: 'numeric',
      month: 'long',
      day: 'numeric',
    }).format(new Date());
    await page.getByRole('navigation', { name: '会員メニュー' }).getByRole('link', { name: 'ライセンス一覧' }).click();
    const card = page.locator('.license-card', { hasText: 'PALS' });
    await card.getByText('購入済み', { exact: true }).waitFor();
    expect(await card.textContent()).toContain(`${today}に購入済み`);
    expect(await page.locator('.license-card', { hasText: 'ICLS' }).textContent()).not.toContain('購入済み');
    await accessible(page, 'catalogue with a held licence');
    await card.getByRole('link').click();
    await page.getByText(`${today}に購入済み`).waitFor();
    expect(await page.getByRole('status').filter({ hasText: '購入済み' }).textContent()).toContain(orderNumber);
    expect(await page.getByRole('link', { name: '購入手続きへ進む' }).count()).toBe(0);
    await accessible(page, 'detail of a held licence');
    await page.screenshot({ path: 'test-results/held-licence.png', fullPage: true });
    // The procedure page opened directly says 購入済み on load, with no active 「お支払いへ進む」 (issue 34 item 7).
    await page.goto(`${shop.baseUrl}/licenses/${licenseId}/procedure`);
    await page.getByRole('status').filter({ hasText: '購入済み' }).waitFor();
    expect(await page.getByRole('button', { name: 'お支払いへ進む' }).isDisabled()).toBe(true);
    await accessible(page, 'procedure of a held licence');

    await page.getByRole('navigation', { name: '会員メニュー' }).getByRole('link', { name: '特定商取引法に基づく表記' }).click();
    await page.getByRole('heading', { name: '特定商取引法に基づく表記' }).waitFor();
    await accessible(page, 'legal notice');
    await page.close();
  });

  it('a konbini payment awaited shows コンビニ支払い待ち with the voucher instead of the buy button', async () => {
    const page = await browser.newPage();
    await signIn(page);
    await page.goto(`${shop.baseUrl}/licenses/${konbiniLicenseId}/procedure`);
    await page.getByRole('button', { name: 'お支払いへ進む' }).click();
    await page.waitForURL(`${shop.stripeUrl}/c/pay/**`);
    await page.getByRole('button', { name: 'コンビニ払い' }).click();
    await page.waitForURL(`**/licenses/${konbiniLicenseId}/complete?session_id=*`);
    await page.getByRole('heading', { name: 'コンビニでのお支払いをお待ちしています' }).waitFor({ timeout: 20_000 });

    await page.goto(`${shop.baseUrl}/licenses`);
    const card = page.locator('.license-card', { hasText: 'ICLS' });
    await card.getByText('コンビニ支払い待ち', { exact: true }).waitFor();
    await accessible(page, 'catalogue with a konbini payment awaited');
    await card.getByRole('link').click();
    const state = page.getByRole('status').filter({ hasText: 'コンビニ支払い待ち' });
    await state.waitFor();
    expect(await state.getByRole('link', { name: 'お支払い方法（払込票）を表示する' }).getAttribute('href')).toMatch(
      /^https?:\/\//,
    );
    expect(await state.getByRole('link', { name: '購入履歴で確認する' }).getAttribute('href')).toMatch(/^\/users\//);
    expect(await page.getByRole('link', { name: '購入手続きへ進む' }).count()).toBe(0);
    await accessible(page, 'detail with a konbini payment awaited');
    await page.close();
  });

  it('never forwards to another host (no open redirect)', async () => {
    const page = await browser.newPage();
    await signIn(page);
    for (const path of [
      '/licenses/checkout/https/evil.example.com/token',
      '/licenses/checkout/javascript/cs_test_abc/alert(1)',
      '/licenses/checkout/https/cs_test_abc%2F%2Fevil.example.com/token',
    ]) {
      await page.goto(`${shop.baseUrl}${path}`);
      await page.getByRole('heading', { name: 'お支払いページに移動できません' }).waitFor();
      expect(new URL(page.url()).origin).toBe(shop.baseUrl);
    }
    await page.close();
  });
});
