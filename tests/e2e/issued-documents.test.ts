import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aLicense, aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestServer } from '../support/server.ts';
import { enrolAdmin, passTwoFactor } from '../support/two-factor-browser.ts';

// A buyer at a fire department phones: 「見積番号 QT-… で発注したい」. Staff find the quotation.

const run = promisify(execFile);
const ADMIN = { email: 'documents-admin@example.jp', password: 'documents-admin-pass' };

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
let scratch: string;
const numbers: string[] = [];

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'documents-e2e-'));
  app = await startTestServer();
  const licenseId = await aLicense(app.runtime.deps.orm, { name: 'PALS 小児二次救命処置ライセンス', price: 27_500 });
  const buyer = await aMember(app.runtime.deps.orm, { lastName: '消防', firstName: '三郎', password: 'buyer-pass-123' });
  const client = new TestClient(app.app, '10.72.0.1');
  expect((await client.login(buyer.email, buyer.password)).status).toBe(200);
  for (const addressee of ['〇〇市消防局 警防課', '〇〇市消防局 総務課', '△△町消防本部']) {
    const res = await client.get(`/api/licenses/${licenseId}/quotation?${new URLSearchParams({ addressee, honorific: '御中' })}`);
    expect(res.status).toBe(200);
    numbers.push(res.headers.get('x-quotation-number') as string);
  }
  await createOrPromoteAdmin(app.runtime.deps.orm, ADMIN);
  await enrolAdmin(app.app, ADMIN);
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const accessible = async (page: Page, name: string) => expect(await axeViolations(page), name).toEqual([]);

async function signIn(page: Page) {
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill(ADMIN.email);
  await page.getByLabel('パスワード').fill(ADMIN.password);
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, ADMIN.email);
  await page.waitForURL('**/admin');
}

it('見積書・請求書 at 375 px: an administrator finds a quotation by the number read over the phone and downloads it again', async () => {
  const page = await browser.newPage({ viewport: { width: 375, height: 800 }, acceptDownloads: true });
  await signIn(page);
  await page.locator('ul.menu').getByRole('link', { name: '見積書・請求書' }).click();
  await page.waitForURL('**/admin/documents');
  expect(await page.title()).toBe('見積書・請求書｜ライセンスストア');
  await page.getByRole('heading', { name: '見積書・請求書', level: 1 }).waitFor();
  await page.getByText('全3件').waitFor();
  await accessible(page, 'the list');

  // The second quotation, typed as heard: lower case, no hyphens.
  const wanted = numbers[1] as string;
  await page.getByLabel('見積番号・宛名・会員の氏名・メールアドレス').fill(wanted.replaceAll('-', '').toLowerCase());
  await page.getByRole('button', { name: '検索する' }).click();
  await page.getByText('全1件').waitFor();
  const rows = page.locator('table.table tbody tr');
  expect(await rows.count()).toBe(1);
  const row = rows.first();
  expect(await row.innerText()).toContain(wanted);
  expect(await row.innerText()).toContain('〇〇市消防局 総務課 御中');
  expect(await row.innerText()).toContain('¥27,500（税込）');
  expect(await row.getByRole('link', { name: '消防 三郎' }).getAttribute('href')).toMatch(/^\/admin\/users\//);
  await accessible(page, 'the search');
  await page.screenshot({ path: 'test-results/issued-documents-375.png', fullPage: true });
  // On the phone each row is a card, every value under its column's name (reached from the menu, not a reload).
  expect(await row.locator('td').evaluateAll((cells) => cells.map((td) => (td as HTMLElement).dataset.label))).toEqual([
    '見積番号',
    '発行日時（日本時間）',
    '有効期限',
    '宛名',
    '会員',
    'ライセンス',
    '金額',
    'PDF',
  ]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

  // The same PDF again.
  const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: /PDF/ }).click()]);
  expect(download.suggestedFilename()).toBe(`御見積書_${wanted}.pdf`);
  const file = join(scratch, 'quotation.pdf');
  await download.saveAs(file);
  const { stdout } = await run('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-']);
  expect(stdout.replace(/\s+/g, ' ')).toContain(`見積番号 ${wanted}`);

  // No match, then the invoices' tab (none issued yet), then a list that fails to load.
  await page.getByLabel('見積番号・宛名・会員の氏名・メールアドレス').fill('QT-0000-000000');
  await page.getByRole('button', { name: '検索する' }).click();
  await page.getByText('条件に合う御見積書はありません。').waitFor();
  await page.getByRole('navigation', { name: '表示する書類' }).getByRole('link', { name: '御請求書' }).click();
  await page.getByText('まだ御請求書は発行されていません。').waitFor();
  await accessible(page, 'no invoices');
  const invoices = (url: URL) => url.pathname === '/api/invoices';
  await page.route(invoices, (route) =>
    route.fulfill({ status: 500, contentType: 'application/json', body: '{"message":"サーバーでエラーが発生しました。"}' }),
  );
  await page.reload();
  await page.getByRole('alert').getByText('サーバーでエラーが発生しました。').waitFor();
  await page.getByRole('button', { name: '再読み込み' }).waitFor();
  await accessible(page, 'error state');
  await page.close();
});
