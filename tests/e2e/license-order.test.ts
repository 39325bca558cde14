import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { confirmInDialog } from '../support/confirm-dialog.ts';
import { aLicense, aMember, aSale } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';
import { enrolAdmin, passTwoFactor } from '../support/two-factor-browser.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
let member: { email: string; password: string };
const ADMIN = { email: 'order-admin@example.jp', password: 'order-admin-pass' };

beforeAll(async () => {
  app = await startTestServer();
  const orm = app.runtime.deps.orm;
  const first = await aLicense(orm, { name: 'BLS 基礎' });
  await aLicense(orm, { name: 'ACLS 二次救命' });
  await aLicense(orm, { name: 'PALS 小児' });
  await aSale(orm, first);
  await aSale(orm, first);
  await aSale(orm, first, { refunded: true });
  await createOrPromoteAdmin(orm, ADMIN);
  await enrolAdmin(app.app, ADMIN);
  member = await aMember(orm);
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function signIn(page: Page, email: string, password: string) {
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill(email);
  await page.getByLabel('パスワード').fill(password);
  const signingInAs = await page.getByLabel('メールアドレス').inputValue();
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, signingInAs);
}
const accessible = async (page: Page, name: string) => expect(await axeViolations(page), name).toEqual([]);
const rowNames = (page: Page) =>
  page.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.querySelector('td:nth-child(4) a')?.textContent ?? ''));

describe('the administrators’ licence list at 375 px', () => {
  it('reorders with the keyboard, hides a licence, shows sales counts — axe-clean — and the catalogue follows', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 812 } });
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.waitForURL('**/admin');
    await page.goto(`${app.baseUrl}/admin/licenses`);
    await page.getByRole('button', { name: '「PALS 小児」を上へ（いま3番目）' }).waitFor();
    expect(await page.getByLabel('並び順').inputValue()).toBe('position');
    expect(await rowNames(page)).toEqual(['BLS 基礎', 'ACLS 二次救命', 'PALS 小児']);
    // Sales per licence: two that stand, one refunded; none for the others.
    const bls = page.locator('tr', { hasText: 'BLS 基礎' });
    await expect.poll(() => bls.textContent()).toContain('2件');
    expect(await bls.textContent()).toContain('返金 1件');
    expect(await page.locator('tr', { hasText: 'PALS 小児' }).textContent()).toContain('0件');
    // The ends cannot move further.
    expect(await page.getByRole('button', { name: '「BLS 基礎」を上へ（いま1番目）' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: '「PALS 小児」を下へ（いま3番目）' }).isDisabled()).toBe(true);
    await accessible(page, 'licence list at 375 px');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

    // With the keyboard: focus PALS's 上へ and press Enter twice; it stays focused as its row moves.
    await page.getByRole('button', { name: '「PALS 小児」を上へ（いま3番目）' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('「PALS 小児」を2番目にしました。').waitFor();
    await expect.poll(() => rowNames(page)).toEqual(['BLS 基礎', 'PALS 小児', 'ACLS 二次救命']);
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('「PALS 小児」を上へ（いま2番目）');
    await page.keyboard.press('Enter');
    await page.getByText('「PALS 小児」を1番目にしました。').waitFor();
    await expect.poll(() => rowNames(page)).toEqual(['PALS 小児', 'BLS 基礎', 'ACLS 二次救命']);
    // At the top its 上へ is disabled: the focus moved to its 下へ.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('「PALS 小児」を下へ（いま1番目）');

    // 公開 → 非公開 from the list, after a confirmation saying what it does.
    await page.getByRole('button', { name: '「ACLS 二次救命」を非公開にする' }).click();
    const asked = await confirmInDialog(page);
    await page.getByText('「ACLS 二次救命」を非公開にしました。').waitFor();
    expect(asked).toContain('開いている決済ページは無効になります');
    const acls = page.locator('tr', { hasText: 'ACLS 二次救命' });
    await acls.locator('.tag', { hasText: '非公開' }).waitFor();
    await page.getByRole('button', { name: '「ACLS 二次救命」を公開する' }).waitFor();
    await accessible(page, 'licence list after a move and a hide');
    await page.screenshot({ path: 'test-results/admin-licence-order-375.png', fullPage: true });
    await page.close();

    // The member's catalogue: the new order, without the hidden licence.
    const memberPage = await browser.newPage({ viewport: { width: 375, height: 812 } });
    await signIn(memberPage, member.email, member.password);
    await memberPage.waitForURL(/\/users\//);
    await memberPage.goto(`${app.baseUrl}/licenses`);
    await memberPage.locator('.license-card').first().waitFor();
    const cards = await memberPage.locator('.license-card .card-name').allTextContents();
    expect(cards.map((name) => name.trim())).toEqual(['PALS 小児', 'BLS 基礎']);
    await memberPage.close();
  });
});

describe('the audit screen’s CSV', () => {
  it('downloads the filtered log as a UTF-8 CSV with BOM, and the download is itself in the log', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 812 } });
    await signIn(page, ADMIN.email, ADMIN.password);
    await page.waitForURL('**/admin');
    await page.goto(`${app.baseUrl}/admin/audit?action=license.reorder`);
    const link = page.getByRole('link', { name: /^CSVをダウンロード（\d+件）$/ });
    await link.waitFor();
    await accessible(page, 'audit log with its CSV download at 375 px');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toMatch(/^操作履歴_\d{8}-\d{4}\.csv$/);
    const bytes = readFileSync((await download.path()) as string);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = bytes.subarray(3).toString('utf8').split('\r\n').filter(Boolean);
    expect(lines[0]).toBe('日時（日本時間）,操作者,操作,対象の種類,対象のID,対象の名前,変更内容,対象の売上（件）');
    // PALS moved twice, BLS and ACLS once each: one entry per licence whose place changed.
    expect(lines.slice(1).every((line) => line.includes('ライセンスの表示順の変更'))).toBe(true);
    expect(lines.length - 1).toBe(4);
    // Each licence by the name the screen shows, beside its id.
    expect(
      lines
        .slice(1)
        .map((line) => line.split(',')[5])
        .sort(),
    ).toEqual(['ACLS 二次救命', 'BLS 基礎', 'PALS 小児', 'PALS 小児']);

    await page.goto(`${app.baseUrl}/admin/audit?action=audit.export`);
    await page.locator('tbody tr', { hasText: '操作履歴のCSV出力' }).first().waitFor();
    await page.close();
  });
});
