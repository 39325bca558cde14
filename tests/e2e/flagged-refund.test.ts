import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { buyThroughStripe, type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';
import { anEnrolledAdmin, signInWithTwoFactor } from '../support/two-factor-browser.ts';
import { eventually } from '../support/wait.ts';

let shop: ShopWithStripe;
let browser: Browser;
const admin = { email: 'flag-refund-e2e@example.jp', password: 'flag-refund-pass-9' };

beforeAll(async () => {
  shop = await startShopWithStripe();
  await anEnrolledAdmin(shop, admin);
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await shop?.stop();
});

it('an administrator refunds a payment made twice from its reconciliation finding, after a confirmation', async () => {
  const { orm } = shop.runtime.deps;
  const staff = new TestClient(shop.app, '10.72.0.1');
  expect((await staff.login(admin.email, admin.password)).status).toBe(200);
  const created = await staff.post('/api/licenses/create', { name: 'BLS 講習', description: '', price: 11000 });
  const licenseId = (await created.json()).license.id as number;
  const buyer = await aMember(orm, { lastName: '二重', firstName: '花子', password: 'buyer-pass-123' });
  const member = new TestClient(shop.app, '10.72.0.2');
  expect((await member.login(buyer.email, 'buyer-pass-123')).status).toBe(200);
  await buyThroughStripe(shop, member, licenseId);
  // A second payment from a tab opened before the purchase (the session is made the member's).
  const other = await aMember(orm, { password: 'other-pass-123' });
  const tab = new TestClient(shop.app, '10.72.0.3');
  expect((await tab.login(other.email, 'other-pass-123')).status).toBe(200);
  const { url } = await (await tab.post('/api/licenses/stripe', { licenseId, distribution: true })).json();
  const sessionId = new URL(url).pathname.split('/').pop() as string;
  await orm.em.fork().execute('update checkout_sessions set user_id = ? where stripe_session_id = ?', [buyer.id, sessionId]);
  shop.emulator.pay(sessionId);
  await eventually(
    async () =>
      (await orm.em.fork().execute('select state from checkout_sessions where stripe_session_id = ?', [sessionId]))[0]?.state ===
      'flagged',
    15_000,
    'the flag',
  );

  const page = await browser.newPage();
  await signInWithTwoFactor(page, shop.baseUrl, admin, '**/admin');
  await page.goto(`${shop.baseUrl}/admin/payments`);
  await page.getByRole('button', { name: '今すぐ照合' }).click();
  await page.getByText('支払い済みなのに売上がない').waitFor({ timeout: 20_000 });
  // Offered on the payment's inbox row and on its difference: refunded from the difference.
  await expect.poll(() => page.getByRole('button', { name: /^この支払いを返金/ }).count()).toBe(2);
  await page
    .locator('.finding')
    .getByRole('button', { name: /^この支払いを返金/ })
    .click();

  const dialog = page.getByRole('dialog', { name: '支払いの返金の確認' });
  await dialog.waitFor();
  expect(await dialog.innerText()).toContain('¥11,000（税込）');
  // The reason is required: the answer's message is tied to the field.
  await dialog.getByRole('button', { name: '返金する' }).click();
  await dialog.getByText('返金の理由を入力してください。').first().waitFor();
  expect(await axeViolations(page)).toEqual([]);
  await page.screenshot({ path: 'test-results/flagged-refund-dialog.png' });
  await dialog.getByLabel('返金の理由').fill('購入済みのライセンスへの重複した支払い');
  await dialog.getByRole('button', { name: '返金する' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByText('¥11,000（税込）を返金しました。').waitFor();
  await page.locator('.finding').getByText('返金済み', { exact: true }).waitFor();
  await page
    .locator('tr', { hasText: '購入済みのライセンスへの重複した支払い' })
    .getByText('返金済み', { exact: true })
    .waitFor();
  expect(await page.getByRole('button', { name: /^この支払いを返金/ }).count()).toBe(0);

  const paymentIntent = String(shop.emulator.sessions.get(sessionId)?.payment_intent);
  const refunds = [...shop.emulator.refunds.values()].filter((r) => r.payment_intent === paymentIntent);
  expect(refunds.map((r) => r.amount)).toEqual([11000]);
  await page.getByText('返金済み（¥11,000、税込）').waitFor();

  await page.setViewportSize({ width: 375, height: 800 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await page.screenshot({ path: 'test-results/flagged-refund.png', fullPage: true });
  expect(await axeViolations(page)).toEqual([]);
  await page.close();
}, 120_000);
