import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';
import { enrolAdmin, passTwoFactor } from '../support/two-factor-browser.ts';
import { eventually } from '../support/wait.ts';

const ADMIN = { email: 'e2e-order-admin@example.jp', password: 'e2e-order-admin-pass' };

let shop: ShopWithStripe;
let browser: Browser;
let saleId: number;
let paymentIntent: string;
let orderNumber: string;
let partSaleId: number;

async function signedInMember(email: string, firstName: string, ip: string) {
  await aMember(shop.runtime.deps.orm, {
    email,
    password: 'e2e-order-pass',
    lastName: '返金',
    firstName,
    affiliation: 2,
    affiliationName: '〇〇県警察',
  });
  const client = new TestClient(shop.app, ip);
  expect((await client.login(email, 'e2e-order-pass')).status).toBe(200);
  return client;
}

beforeAll(async () => {
  shop = await startShopWithStripe();
  const license = await createLicense(
    shop.runtime.deps.orm,
    shop.runtime.deps.files,
    { id: 'test', email: 'test' },
    { name: 'JPTEC プロバイダーライセンス', description: '', price: 11000 },
    [],
  );
  // A card purchase through the Stripe emulator (checkout → payment → webhook → sale) …
  const buyer = await signedInMember('e2e-order-buyer@example.jp', '花子', '10.45.0.1');
  const res = await buyer.post('/api/licenses/stripe', { licenseId: license.id, distribution: true });
  const sessionId = new URL((await res.json()).url).pathname.split('/').pop() as string;
  shop.emulator.pay(sessionId, 'card');
  const paid = await eventually(
    async () => {
      const status = await (await buyer.get(`/api/checkout/sessions/${sessionId}`)).json();
      return status.sale_id ? status : null;
    },
    15_000,
    'the sale',
  );
  saleId = paid.sale_id;
  orderNumber = paid.order_number;
  paymentIntent = String(shop.emulator.sessions.get(sessionId)?.payment_intent);
  // A second card purchase, refunded in part below …
  const second = await signedInMember('e2e-order-part@example.jp', '三郎', '10.45.0.3');
  const started = await second.post('/api/licenses/stripe', { licenseId: license.id, distribution: true });
  const secondSession = new URL((await started.json()).url).pathname.split('/').pop() as string;
  shop.emulator.pay(secondSession, 'card');
  partSaleId = await eventually(
    async () => (await (await second.get(`/api/checkout/sessions/${secondSession}`)).json()).sale_id as number | null,
    15_000,
    'the second sale',
  );
  // … and a konbini payment still awaited.
  const waiting = await signedInMember('e2e-order-konbini@example.jp', '次郎', '10.45.0.2');
  const pending = await waiting.post('/api/licenses/stripe', { licenseId: license.id, distribution: true });
  shop.emulator.pay(new URL((await pending.json()).url).pathname.split('/').pop() as string, 'konbini');
  await createOrPromoteAdmin(shop.runtime.deps.orm, ADMIN);
  await enrolAdmin(shop.app, ADMIN);
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await shop?.stop();
});

const accessible = async (page: Page, name: string) => expect(await axeViolations(page), name).toEqual([]);

async function signIn(page: Page) {
  await page.goto(`${shop.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill(ADMIN.email);
  await page.getByLabel('パスワード').fill(ADMIN.password);
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, ADMIN.email);
  await page.waitForURL('**/admin');
}

it('an administrator opens an order from the sales list and refunds it through the dialog — 返金手続き中, then 返金済み (375 px, axe-clean)', async () => {
  const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
  await signIn(page);
  await page.getByRole('link', { name: 'ライセンス発行' }).first().click();
  await page.waitForURL('**/admin/licenses/issue');
  await page.getByRole('link', { name: `${orderNumber} の注文の詳細` }).click();
  await page.waitForURL(`**/admin/sales/${saleId}`);
  expect(await page.title()).toBe('注文の詳細｜ライセンスストア');
  await page.getByRole('heading', { name: /注文の詳細/, level: 1 }).waitFor();
  const facts = page.locator('dl.summary').first();
  expect(await facts.innerText()).toContain(orderNumber);
  expect(await facts.innerText()).toContain('¥11,000（税込）');
  expect(await facts.innerText()).toContain('うち消費税 ¥1,000');
  expect(await facts.innerText()).toContain('クレジットカード');
  expect(await facts.innerText()).toContain('（日本時間）');
  expect(await facts.innerText()).toContain(paymentIntent);
  const inbox = page.getByRole('link', { name: '決済の受信箱でこの注文のイベントを見る' });
  expect(await inbox.getAttribute('href')).toMatch(/^\/admin\/payments\?session=cs_test_/);
  await page.getByRole('link', { name: '返金 花子さんのユーザー詳細' }).waitFor();
  await accessible(page, 'the order detail at 375 px');

  // The app's own dialog: named, modal, focus inside, Esc closes it and gives the focus back.
  const open = page.getByRole('button', { name: '返金する' });
  await open.click();
  const dialog = page.getByRole('dialog', { name: '返金の確認' });
  await dialog.waitFor();
  expect(await dialog.getAttribute('aria-modal')).toBe('true');
  expect(await dialog.innerText()).toContain(orderNumber);
  expect(await dialog.innerText()).toContain('¥11,000（税込）');
  // The amount comes first, filled with what remains (the whole price).
  expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('amount');
  expect(await dialog.getByLabel('返金額（円）').inputValue()).toBe('11000');
  await accessible(page, 'the refund dialog');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('返金する');
  expect(shop.emulator.refunds.size).toBe(0);

  // Without a reason: the server's Japanese message, in the dialog.
  await open.click();
  await dialog.getByRole('button', { name: '返金する' }).click();
  await dialog.getByText('返金の理由を入力してください。').first().waitFor();
  // The summary names the field by its own label (返金の理由), not the API's generic 理由.
  const summary = await dialog.locator('[data-form-alert]').innerText();
  expect(summary).toContain('返金の理由');
  expect(summary).not.toContain('（理由）');
  expect(shop.emulator.refunds.size).toBe(0);

  // With a reason: Stripe (the emulator) is asked; its webhook is held, so the order waits in 返金手続き中.
  shop.emulator.hold();
  await dialog.getByLabel('返金の理由').fill('お客様都合のキャンセル');
  await dialog.getByRole('button', { name: '返金する' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByText('Stripe に返金を依頼しました。完了の通知が届くと「返金済み」になります。').waitFor();
  expect(await page.locator('.tag', { hasText: '返金手続き中' }).count()).toBeGreaterThan(0);
  expect([...shop.emulator.refunds.values()].map((r) => [r.payment_intent, r.amount])).toEqual([[paymentIntent, 11000]]);
  await accessible(page, '返金手続き中');

  // charge.refunded arrives: the page (polling while the refund is under way) turns to 返金済み.
  await shop.emulator.release();
  await page.getByText('に Stripe で返金が確定しました。').waitFor({ timeout: 20_000 });
  expect(await page.getByRole('button', { name: '返金する' }).count()).toBe(0);
  expect(await page.locator('.order-history').innerText()).toContain('返金の確定');
  expect(await page.locator('.order-history').innerText()).toContain('お客様都合のキャンセル');
  await accessible(page, '返金済み');
  await page.close();
});

it('an order that does not exist says so, with the way back to the sales list and the admin menu only (axe-clean)', async () => {
  const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
  await signIn(page);
  await page.goto(`${shop.baseUrl}/admin/sales/999999`);
  await page.getByText('この注文は見つかりませんでした。').waitFor();
  expect(await page.getByText('エラー:').count()).toBe(0);
  expect(await page.getByRole('link', { name: '売上の一覧へ' }).count()).toBe(1);
  expect(await page.getByRole('link', { name: '会員情報・購入履歴へ' }).count()).toBe(0);
  await accessible(page, '注文が見つからない');
  await page.close();
});

it('お支払い待ち: the awaited konbini payment with its deadline and member, reached from the admin menu (375 px, axe-clean)', async () => {
  const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
  await signIn(page);
  await page.getByRole('link', { name: 'コンビニ払いのお支払い待ち' }).click();
  await page.waitForURL('**/admin/payments/konbini');
  await page.getByRole('heading', { name: 'コンビニ払いのお支払い待ち', level: 1 }).waitFor();
  const row = page.locator('tbody tr', { hasText: 'e2e-order-konbini@example.jp' });
  await row.waitFor();
  expect(await row.innerText()).toContain('¥11,000（税込）');
  expect(await row.innerText()).toContain('（日本時間）');
  expect(await row.getByRole('link', { name: '返金 次郎' }).getAttribute('href')).toMatch(/^\/admin\/users\//);
  await accessible(page, 'お支払い待ち');
  await page.getByRole('button', { name: /期限切れ/ }).click();
  await page.getByText('期限切れになった申し込みはありません。').waitFor();
  await accessible(page, '期限切れ, empty');
  await page.close();
});

it('refunds part of an order, keeps notes on it and on its member, and resends the purchase mail (1440 px, axe-clean)', async () => {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await signIn(page);
  await page.goto(`${shop.baseUrl}/admin/sales/${partSaleId}`);
  await page.getByRole('heading', { name: /注文の詳細/, level: 1 }).waitFor();
  await page.getByText('メモはまだありません。').first().waitFor();
  await accessible(page, 'an order with no refund and no note');

  // 3,000 yen of 11,000: the emulator is asked for that amount; the order turns 一部返金.
  await page.getByRole('button', { name: '返金する' }).click();
  const dialog = page.getByRole('dialog', { name: '返金の確認' });
  await dialog.getByLabel('返金額（円）').fill('3000');
  await dialog.getByLabel('返金の理由').fill('受講日の一部欠席');
  await dialog.getByRole('button', { name: '返金する' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.locator('.tag', { hasText: '一部返金' }).first().waitFor({ timeout: 20_000 });
  expect(await page.getByText(/¥3,000.*を返金済みです/).count()).toBe(1);
  const refunds = [...shop.emulator.refunds.values()].filter((r) => r.amount === 3000);
  expect(refunds).toHaveLength(1);
  // More than remains is refused in the dialog, in Japanese; nothing reaches Stripe.
  await page.getByRole('button', { name: '返金する' }).click();
  expect(await dialog.getByLabel('返金額（円）').inputValue()).toBe('8000');
  await dialog.getByLabel('返金額（円）').fill('9000');
  await dialog.getByLabel('返金の理由').fill('多すぎる');
  await dialog.getByRole('button', { name: '返金する' }).click();
  await dialog.getByText('返金額は、まだ返金していない¥8,000以内で入力してください。').first().waitFor();
  await page.keyboard.press('Escape');
  await accessible(page, '一部返金');

  // A note: the timeline shows it with its author and Japan time.
  await page.getByLabel('メモを追加').fill('お客様から電話あり。残額は来月返金の予定。');
  await page.getByRole('button', { name: 'メモを残す' }).click();
  const note = page.locator('.notes-timeline li', { hasText: 'お客様から電話あり' });
  await note.waitFor();
  expect(await note.innerText()).toContain(ADMIN.email);
  expect(await note.innerText()).toContain('（日本時間）');

  // The order's mails: a heading, and a table that does not read the same title again.
  const mails = page.getByRole('region', { name: 'この注文について送信したメール' });
  expect(await mails.locator('table caption, table[aria-labelledby], table[aria-label]').count()).toBe(0);

  // The purchase mail again.
  await page.getByRole('button', { name: '購入メールを再送する' }).click();
  await page.getByText('購入のお知らせメールの再送を受け付けました。').waitFor();
  await accessible(page, 'a note and a resend');

  // The member's page has a timeline of its own.
  await page.getByRole('link', { name: '返金 三郎さんのユーザー詳細' }).click();
  await page.waitForURL('**/admin/users/**');
  await page.getByLabel('メモを追加').fill('法人請求書の宛名を確認中');
  await page.getByRole('button', { name: 'メモを残す' }).click();
  await page.locator('.notes-timeline li', { hasText: '法人請求書の宛名を確認中' }).waitFor();
  await accessible(page, 'the member with a note');
  await page.close();
});
