import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { confirmInDialog } from '../support/confirm-dialog.ts';
import { aLicense, aSale } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';
import { enrolAdmin, passTwoFactor } from '../support/two-factor-browser.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;

beforeAll(async () => {
  app = await startTestServer({ env: { EXPORT_GROUP_NAME: 'E2Eグループ' } });
  await createOrPromoteAdmin(app.runtime.deps.orm, { email: 'issue-admin@example.jp', password: 'issue-admin-pass' });
  await enrolAdmin(app.app, { email: 'issue-admin@example.jp', password: 'issue-admin-pass' });
  const license = await aLicense(app.runtime.deps.orm, { name: 'JPTEC講習', price: 16_500 });
  for (const [lastName, firstName, email] of [
    ['高橋', '一郎', 'takahashi@example.jp'],
    ['渡辺', '二郎', 'watanabe@example.jp'],
  ] as const) {
    await aSale(app.runtime.deps.orm, license, { lastName, firstName, email, affiliationName: '〇〇消防', amount: 16_500 });
  }
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

it('an administrator moves a selection with its count, undoes it, exports a batch, downloads it and completes it', async () => {
  const page = await browser.newPage();
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill('issue-admin@example.jp');
  await page.getByLabel('パスワード').fill('issue-admin-pass');
  const signingInAs = await page.getByLabel('メールアドレス').inputValue();
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, signingInAs);
  await page.waitForURL('**/admin');
  await page.getByRole('link', { name: 'ライセンス発行' }).click();
  await page.waitForURL('**/admin/licenses/issue');
  await page.getByText('takahashi@example.jp').waitFor();
  await page.getByLabel('ライセンス', { exact: true }).selectOption({ label: 'JPTEC講習' });
  await page.getByRole('button', { name: '検索する' }).click();
  await page.waitForURL(/license_id=/);
  await page.getByText('watanabe@example.jp').waitFor();
  await page.getByRole('button', { name: '検索結果の出力待ち2件をすべて処理中にする' }).waitFor();
  expect(await axeViolations(page)).toEqual([]);

  const row = (email: string) => page.locator('tr', { hasText: email });

  // The selection, named with its count.
  await page.getByRole('checkbox', { name: '高橋 一郎さんの売上を選択' }).check();
  await page.getByRole('button', { name: '選択した1件を処理中にする' }).click();
  // The app's own dialog names what moves: the count and the order (number and buyer).
  const moveDialog = page.getByRole('dialog', { name: '売上を「処理中」にします' });
  await moveDialog.waitFor();
  expect(await axeViolations(page)).toEqual([]);
  const moveText = await confirmInDialog(page);
  expect(moveText).toContain('選択した1件を「処理中」にします。');
  expect(moveText).toMatch(/対象：[A-Z0-9-]+（高橋 一郎）|対象：売上ID \d+（高橋 一郎）/);
  await page.getByText('1件の状態を更新しました。').waitFor();
  await row('takahashi@example.jp').getByText('処理中').waitFor();

  // 差し戻し with a reason.
  await page.getByRole('button', { name: '高橋 一郎さんの売上を差し戻す' }).click();
  await page.getByRole('button', { name: '差し戻す', exact: true }).click();
  await page.getByText('差し戻しの理由を入力してください。').first().waitFor();
  await page.getByLabel('差し戻しの理由').fill('操作の誤り');
  await page.getByRole('button', { name: '差し戻す', exact: true }).click();
  await page.getByText('1件を差し戻しました。').waitFor();
  await row('takahashi@example.jp').getByText('出力待ち').waitFor();

  // 一括処理 is off on arrival: the panel says a plain export writes 出力待ち and 処理中 and moves nothing.
  const batchBox = page.getByRole('checkbox', { name: /一括処理/ });
  expect(await batchBox.isChecked()).toBe(false);
  await page.getByText('書き出しのみ：「出力待ち」と「処理中」の2件を書き出します。売上の状態は変わりません。').waitFor();

  // A batch, ticked on purpose: both 出力待ち sales move to 処理中 and the file is made.
  await batchBox.check();
  await page.getByText('一括処理：「出力待ち」2件を「処理中」にして書き出します。').waitFor();
  await page.getByRole('button', { name: 'CSVを作成する' }).click();
  expect(await confirmInDialog(page)).toContain(
    '検索結果の「出力待ち」の売上2件を「処理中」にして、その2件をUTF-8のCSVに書き出します。',
  );
  const link = page.getByRole('link', { name: /^研修登録_JPTEC講習_\d{8}-\d{4}\.csv$/ });
  await link.waitFor({ timeout: 15_000 });
  await row('takahashi@example.jp').getByText('処理中').waitFor();
  await row('watanabe@example.jp').getByText('処理中').waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  expect(download.suggestedFilename()).toMatch(/^研修登録_JPTEC講習_\d{8}-\d{4}\.csv$/);
  const csv = readFileSync((await download.path()) as string, 'utf8').replace(/^\uFEFF/, '');
  const lines = csv.split('\r\n').filter(Boolean);
  expect(lines[0]).toBe('メールアドレス,姓,名,言語,グループ,所属,所属名,ライセンス名,購入日時');
  expect(lines).toHaveLength(3);
  expect(lines[1]).toContain(',日本語,E2Eグループ,消防・救急,〇〇消防,JPTEC講習,');
  expect(await axeViolations(page)).toEqual([]);

  // The training system has them: the batch is completed.
  await page.getByRole('button', { name: '登録済みにする', exact: true }).click();
  expect(await confirmInDialog(page)).toContain('の「処理中」の売上2件を「登録済み」にします。');
  await page.getByText('2件を登録済みにしました。').waitFor();
  // A completed batch offers nothing more.
  expect(await page.getByRole('button', { name: '登録済みにする', exact: true }).count()).toBe(0);
  await row('takahashi@example.jp').getByText('登録済み').waitFor();
  await row('watanabe@example.jp').getByText('登録済み').waitFor();
  await page.setViewportSize({ width: 375, height: 800 });
  await page.screenshot({ path: 'test-results/issue.png', fullPage: true });
  expect(await axeViolations(page)).toEqual([]);

  // 操作履歴: each move says how many sales it moved and links to exactly those.
  await page.goto(`${app.baseUrl}/admin/audit?action=sale.status`);
  const entry = page.locator('tbody tr').first();
  await entry.getByText('対象の売上').waitFor();
  expect((await entry.innerText()).replace(/\s+/g, '')).toMatch(/対象の売上1件（注文番号[A-Z0-9-]+）この1件を一覧で見る/);
  expect(await axeViolations(page)).toEqual([]);
  await entry.getByRole('link', { name: 'この1件を一覧で見る' }).click();
  await page.waitForURL(/\/admin\/licenses\/issue\?audit_id=/);
  await page.getByText('操作履歴の操作で状態が変わった売上だけを、現在の状態で表示しています。').waitFor();
  await page.getByText('takahashi@example.jp').waitFor();
  await page.getByText('全1件').waitFor();
  expect(await page.getByText('watanabe@example.jp').count()).toBe(0);
  expect(await page.getByRole('heading', { name: '研修管理システム用CSV' }).count()).toBe(0);
  expect(await axeViolations(page)).toEqual([]);

  await page.goto(`${app.baseUrl}/admin/audit?action=sale.export.complete`);
  await page.getByRole('link', { name: 'この2件を一覧で見る' }).click();
  await page.getByText('watanabe@example.jp').waitFor();
  await page.getByText('takahashi@example.jp').waitFor();
  await page.getByText('全2件').waitFor();
  // The search form leaves that view for the whole list.
  await page.getByRole('link', { name: 'すべての売上を表示する' }).click();
  await page.getByText('操作履歴の操作で状態が変わった売上だけ').waitFor({ state: 'detached' });
  await page.getByRole('heading', { name: '研修管理システム用CSV' }).waitFor();
  await page.close();
}, 90_000);

it('a reversed date range says what to fix; the search label says what it matches; 返金済み is a filter', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill('issue-admin@example.jp');
  await page.getByLabel('パスワード').fill('issue-admin-pass');
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, 'issue-admin@example.jp');
  await page.waitForURL('**/admin');
  await page.goto(`${app.baseUrl}/admin/licenses/issue`);
  await page.getByLabel('氏名・フリガナ・メールアドレス・注文番号').waitFor();
  expect(await page.getByLabel('状態').locator('option', { hasText: '返金済み' }).count()).toBe(1);
  await page.getByLabel('購入日（から）').fill('2026-04-10');
  await page.getByLabel('購入日（まで）').fill('2026-04-01');
  await page.getByRole('button', { name: '検索する' }).click();
  const message = '購入日（まで）は購入日（から）と同じか、それより後の日付を指定してください。';
  await page.getByRole('alert').filter({ hasText: message }).waitFor();
  expect(await page.getByLabel('購入日（まで）').getAttribute('aria-invalid')).toBe('true');
  expect(await page.getByText('条件に合う売上はありません。').count()).toBe(0);
  expect(await axeViolations(page)).toEqual([]);
  await page.close();
}, 60_000);

it('a batch completed from the toolbar leaves 作成履歴 at once: its 「登録済みにする」 goes without a reload', async () => {
  const license = await aLicense(app.runtime.deps.orm, { name: 'ICLS講習', price: 5_500 });
  await aSale(app.runtime.deps.orm, license, { lastName: '佐藤', firstName: '三郎', email: 'sato@example.jp', amount: 5_500 });
  const page = await browser.newPage();
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill('issue-admin@example.jp');
  await page.getByLabel('パスワード').fill('issue-admin-pass');
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, 'issue-admin@example.jp');
  await page.waitForURL('**/admin');
  await page.goto(`${app.baseUrl}/admin/licenses/issue?license_id=${license}`);
  await page.getByText('sato@example.jp').waitFor();
  await page.getByRole('checkbox', { name: /一括処理/ }).check();
  await page.getByRole('button', { name: 'CSVを作成する' }).click();
  await confirmInDialog(page);
  const complete = page.getByRole('button', { name: '登録済みにする', exact: true });
  await complete.waitFor({ timeout: 15_000 });
  await page.getByRole('button', { name: '検索結果の処理中1件をすべて登録済みにする' }).click();
  await confirmInDialog(page);
  await page.getByText('1件の状態を更新しました。').waitFor();
  await complete.waitFor({ state: 'detached', timeout: 5_000 });
  await page
    .getByText(/・登録済み（\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}）/)
    .first()
    .waitFor();
  expect(await axeViolations(page)).toEqual([]);
  await page.close();
}, 90_000);

it('お支払い方法 narrows the sales list to the sales paid that way (375 px, axe-clean)', async () => {
  const orm = app.runtime.deps.orm;
  const license = await aLicense(orm, { name: 'コンビニ講習', price: 5_500 });
  await aSale(orm, license, { lastName: '小林', firstName: '三郎', email: 'kobayashi@example.jp', paymentMethod: 'konbini' });
  const page = await browser.newPage();
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill('issue-admin@example.jp');
  await page.getByLabel('パスワード').fill('issue-admin-pass');
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, 'issue-admin@example.jp');
  await page.waitForURL('**/admin');
  await page.goto(`${app.baseUrl}/admin/licenses/issue`);
  await page.getByLabel('お支払い方法').selectOption({ label: 'コンビニ払い' });
  await page.getByRole('button', { name: '検索する' }).click();
  await page.waitForURL('**payment_method=konbini**');
  await page.getByText('kobayashi@example.jp').first().waitFor();
  expect(await page.getByText('takahashi@example.jp').count()).toBe(0);
  expect(await axeViolations(page)).toEqual([]);
  // 銀行振込 is offered before any sale is paid that way: the empty list says so.
  await page.getByLabel('お支払い方法').selectOption({ label: '銀行振込' });
  await page.getByRole('button', { name: '検索する' }).click();
  await page.getByText('条件に合う売上はありません。').waitFor();
  await page.close();
}, 60_000);
