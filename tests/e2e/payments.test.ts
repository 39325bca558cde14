import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { db, jsonb, now } from '../../src/db/kysely.ts';
import { eventJson } from '../../src/dev/stripe-emulator/emulator.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { confirmInDialog } from '../support/confirm-dialog.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';
import { enrolAdmin, passTwoFactor } from '../support/two-factor-browser.ts';
import { eventually } from '../support/wait.ts';

let shop: ShopWithStripe;
let browser: Browser;

beforeAll(async () => {
  shop = await startShopWithStripe();
  await createOrPromoteAdmin(shop.runtime.deps.orm, { email: 'pay-admin@example.jp', password: 'pay-admin-pass' });
  await enrolAdmin(shop.app, { email: 'pay-admin@example.jp', password: 'pay-admin-pass' });
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await shop?.stop();
});

it('an operator finds a failed payment event, replays it into a sale, and reconciles', async () => {
  const { orm } = shop.runtime.deps;
  const license = await createLicense(
    orm,
    shop.runtime.deps.files,
    { id: 'test', email: 'test' },
    { name: 'ICLS 講習', description: '', price: 13200 },
    [],
  );
  await aMember(orm, {
    email: 'konbini-buyer@example.jp',
    password: 'buyer-pass-123',
    lastName: '救急',
    firstName: '花子',
    emailVerified: true,
    affiliation: 2,
    affiliationName: '〇〇病院',
  });
  const buyer = new TestClient(shop.app, '10.50.0.1');
  await buyer.login('konbini-buyer@example.jp', 'buyer-pass-123');
  const { url } = await (await buyer.post('/api/licenses/stripe', { licenseId: license.id, distribution: true })).json();
  const sessionId = new URL(url).pathname.split('/').pop() as string;

  // Paid at Stripe; the webhook was received but its processing failed (planted in the inbox).
  shop.emulator.hold();
  shop.emulator.pay(sessionId);
  const completed = shop.emulator.held().find((e) => e.type === 'checkout.session.completed');
  await shop.emulator.release([]);
  if (!completed) throw new Error('no completed event');
  await db(orm.em.fork())
    .insertInto('stripe_events')
    .values({
      id: completed.id,
      type: completed.type,
      payload: jsonb(eventJson(completed)),
      stripe_session_id: sessionId,
      received_at: now(),
      attempts: 8,
      failed_at: now(),
      last_error: 'Error: Connection terminated unexpectedly',
    })
    .execute();

  const page = await browser.newPage();
  await page.goto(`${shop.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill('pay-admin@example.jp');
  await page.getByLabel('パスワード').fill('pay-admin-pass');
  const signingInAs = await page.getByLabel('メールアドレス').inputValue();
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, signingInAs);
  await page.waitForURL('**/admin');
  await page.getByRole('link', { name: '決済の受信箱と照合' }).click();
  await page.waitForURL('**/admin/payments');
  await page.getByText('照合はまだ実行されていません。').waitFor();

  // The reconciliation finds the paid session without a sale, and points at the failed event.
  await page.getByRole('button', { name: '今すぐ照合' }).click();
  await page.getByText('支払い済みなのに売上がない').waitFor({ timeout: 20_000 });
  await page.getByText('Webhook イベントを再実行できます。').waitFor();
  expect(await axeViolations(page)).toEqual([]);
  await page.getByRole('link', { name: '受信したイベントを見て再実行する' }).click();
  await page.waitForURL(/session=/);

  const row = page.locator('tr', { hasText: completed.id });
  await row.getByText('失敗', { exact: true }).waitFor();
  await row.getByText('Error: Connection terminated unexpectedly').waitFor();
  await row.getByRole('button', { name: '再実行' }).click();
  expect(await confirmInDialog(page)).toContain('に受け取った「決済手続きの完了」の通知を、もう一度処理します。');
  await page.getByText('再実行しました（売上を記録）。').waitFor();
  await row.getByText('処理済み', { exact: true }).waitFor();
  await eventually(
    async () =>
      (await orm.em.fork().execute('select count(*)::int as n from sales where stripe_session_id = ?', [sessionId]))[0]?.n === 1,
    15_000,
    'the sale',
  );

  // The next run is clean.
  await page.getByRole('button', { name: '今すぐ照合' }).click();
  await page.getByText('差異はありませんでした。Stripe の支払いと売上はすべて一致しています。').waitFor({ timeout: 20_000 });

  // Filters that match nothing say so.
  await page.getByLabel('状態').selectOption({ label: '失敗' });
  await page.getByRole('button', { name: '検索' }).click();
  await page.getByText('条件に合うイベントはありません。').waitFor();

  await page.setViewportSize({ width: 375, height: 800 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await page.screenshot({ path: 'test-results/payments.png', fullPage: true });
  expect(await axeViolations(page)).toEqual([]);
  await page.close();
}, 120_000);
