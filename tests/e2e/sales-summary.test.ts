import { readFile } from 'node:fs/promises';
import iconv from 'iconv-lite';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aLicense, anAdmin, aRefund, aSale } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';
import { enrolAdmin, passTwoFactor } from '../support/two-factor-browser.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
let admin: { email: string; password: string };

/** Last month in Japan as YYYY-MM, and the instant of a Japan date-time in it. */
function lastMonth(): { month: string; at: (day: number, time: string) => string; label: string } {
  const [year, month] = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Tokyo' })
    .format(new Date())
    .split('-')
    .map(Number) as [number, number];
  const first = new Date(Date.UTC(year, month - 2, 1));
  const ym = first.toISOString().slice(0, 7);
  return {
    month: ym,
    at: (day, time) => new Date(`${ym}-${String(day).padStart(2, '0')}T${time}+09:00`).toISOString(),
    label: `${first.getUTCFullYear()}年${first.getUTCMonth() + 1}月`,
  };
}

const previous = lastMonth();

beforeAll(async () => {
  app = await startTestServer();
  const orm = app.runtime.deps.orm;
  admin = await anAdmin(orm);
  await enrolAdmin(app.app, admin);
  const bls = await aLicense(orm, { name: 'BLSプロバイダー', price: 11_000 });
  const acls = await aLicense(orm, { name: 'ACLSプロバイダー', price: 9_998 });
  // Last month: two BLS (one refunded in the month) and one ACLS; the 1st at 00:30 JST is still last month.
  await aSale(orm, bls, { paidAt: previous.at(1, '00:30:00') });
  const refunded = await aSale(orm, bls, { paidAt: previous.at(10, '12:00:00') });
  await aRefund(orm, refunded, { refundedAt: previous.at(12, '09:00:00') });
  await aSale(orm, acls, { amount: 9_998, paidAt: previous.at(20, '18:00:00') });
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const accessible = async (page: Page, name: string) => expect(await axeViolations(page), name).toEqual([]);
const total = (page: Page, term: string) => page.locator('.summary-totals > div', { hasText: term }).locator('dd');

it('an administrator reads last month’s totals, per licence, and downloads them as CSV — at 375 px, axe-clean', async () => {
  const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill(admin.email);
  await page.getByLabel('パスワード').fill(admin.password);
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, admin.email);
  await page.waitForURL('**/admin');

  await page.getByRole('link', { name: '売上集計' }).click();
  await page.waitForURL('**/admin/sales/summary');
  expect(await page.title()).toBe('売上集計｜ライセンスストア');
  await page.getByRole('heading', { name: '売上集計', level: 1 }).waitFor();
  // This month has no sales: the empty state.
  await page.getByText('この期間の売上はありません。').waitFor();
  await accessible(page, 'this month, empty');

  await page.getByRole('button', { name: '先月' }).click();
  await page.getByRole('heading', { name: `${previous.label}の集計` }).waitFor();
  expect(await page.getByRole('button', { name: '先月' }).getAttribute('aria-pressed')).toBe('true');
  expect(new URL(page.url()).searchParams.get('from')).toBe(`${previous.month}-01`);
  // 11,000 × 2 + 9,998; tax 1,000 × 2 + 908 (per sale, as the receipts); one refund of 11,000.
  expect(await total(page, '件数').first().textContent()).toBe('3件');
  expect(await total(page, '売上金額（税込）').textContent()).toBe('¥31,998');
  expect(await total(page, 'うち消費税').textContent()).toBe('¥2,908');
  expect(await total(page, '返金件数').textContent()).toBe('1件');
  expect(await total(page, '返金額').textContent()).toBe('¥11,000');
  expect(await total(page, '純売上').textContent()).toBe('¥20,998');
  await page.getByText('純売上 ＝ 売上金額 − 返金額。').waitFor();
  const rows = page.locator('.summary-table tbody tr');
  expect(await rows.count()).toBe(2);
  // BLS: 2 sales, ¥22,000, tax ¥2,000, 1 refund of ¥11,000, net ¥11,000 (the labels are the cells' data-label).
  expect((await rows.first().innerText()).replace(/\s+/g, '')).toBe('BLSプロバイダー2件¥22,000¥2,0001件¥11,000¥11,000');
  expect(await rows.first().locator('td').first().getAttribute('data-label')).toBe('件数');
  expect(await page.locator('.summary-table tfoot').innerText()).toContain('合計');
  await accessible(page, 'last month at 375 px');

  // The CSV of the period shown: UTF-8 with BOM by default.
  const link = page.getByRole('link', { name: `CSVをダウンロード（${previous.label}）`, exact: true });
  expect(await link.getAttribute('href')).toBe(
    `/api/sales/summary.csv?from=${previous.month}-01&to=${new URL(page.url()).searchParams.get('to')}&encoding=utf-8`,
  );
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  expect(download.suggestedFilename()).toBe(`売上集計_${previous.month}.csv`);
  const bytes = await readFile((await download.path()) as string);
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const lines = bytes.subarray(3).toString('utf8').trimEnd().split('\r\n');
  expect(lines[0]).toBe(
    '集計開始日,集計終了日,ライセンスID,ライセンス名,件数,売上金額（税込）,うち消費税,返金件数,返金額,純売上',
  );
  expect(lines).toHaveLength(4);
  expect(lines[3]).toMatch(/,,合計,3,31998,2908,1,11000,20998$/);

  // Shift_JIS for older Excel.
  await page.getByLabel('文字コード').selectOption('shift_jis');
  const [sjis] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: /^CSVをダウンロード/ }).click(),
  ]);
  const text = iconv.decode(await readFile((await sjis.path()) as string), 'cp932');
  expect(text.startsWith('集計開始日,')).toBe(true);
  expect(text).toContain('BLSプロバイダー');

  // 受注CSV of the same period: one row per order, adding up to the totals above.
  const [orders] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: `受注CSVをダウンロード（${previous.label}）` }).click(),
  ]);
  const orderLines = iconv
    .decode(await readFile((await orders.path()) as string), 'cp932')
    .trimEnd()
    .split('\r\n');
  expect(orderLines[0]?.startsWith('注文番号,注文日時,支払日時,会員番号,氏名,フリガナ,所属,ライセンス,金額（税込）')).toBe(true);
  const cells = orderLines.slice(1).map((line) => line.split(','));
  expect(cells).toHaveLength(3);
  expect(cells.reduce((n, row) => n + Number(row[8]), 0)).toBe(31_998);
  expect(cells.reduce((n, row) => n + Number(row[9]), 0)).toBe(2_908);
  expect(cells.reduce((n, row) => n + Number(row[14]), 0)).toBe(11_000);

  // A reversed custom period: the field's Japanese message, still axe-clean.
  await page.getByLabel('期間（から）').fill(`${previous.month}-20`);
  await page.getByLabel('期間（まで）').fill(`${previous.month}-10`);
  await page.getByRole('button', { name: '集計する' }).click();
  await page.getByText('終了日は開始日と同じか、それより後の日付を指定してください。').waitFor();
  await page.getByRole('alert').filter({ hasText: '集計期間を確認してください。' }).waitFor();
  await accessible(page, 'reversed period');

  // A custom period inside the month: only the sales of those days.
  await page.getByLabel('期間（から）').fill(`${previous.month}-10`);
  await page.getByLabel('期間（まで）').fill(`${previous.month}-20`);
  await page.getByRole('button', { name: '集計する' }).click();
  await expect.poll(() => total(page, '売上金額（税込）').textContent()).toBe('¥20,998');
  expect(await total(page, '純売上').textContent()).toBe('¥9,998');

  // The month picker, on a wide screen.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByLabel('月を選ぶ（過去12か月）').selectOption(previous.month);
  await page.getByRole('heading', { name: `${previous.label}の集計` }).waitFor();
  await accessible(page, 'last month at 1280 px');
  await page.close();
}, 120_000);
