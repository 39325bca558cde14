import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { site } from '../../src/site-settings.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { confirmInDialog } from '../support/confirm-dialog.ts';
import { aMember } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { anEnrolledAdmin, signInWithTwoFactor } from '../support/two-factor-browser.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
let smtp: TestSmtp;
const ADMIN = { email: 'terms-admin@example.jp', password: 'kumo-umi-sora-42' };
const SUBJECT = `【${site.shopName}】利用規約・プライバシーポリシー改定のお知らせ`;

beforeAll(async () => {
  smtp = await startSmtp();
  app = await startTestServer({ smtpUrl: smtp.url });
  await anEnrolledAdmin(app, ADMIN);
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await smtp?.close();
});

const accessible = async (page: Page, name: string) => expect(await axeViolations(page), name).toEqual([]);

it('改定のお知らせ at 375 px: the text, a test to oneself, the send with its record, and a second send that asks first', async () => {
  // A member who declined announcements still gets the notice.
  const member = await aMember(app.runtime.deps.orm, { email: 'no-news@example.jp', distribution: false });
  const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
  await signInWithTwoFactor(page, app.baseUrl, ADMIN, '**/admin');
  await page.goto(`${app.baseUrl}/admin/announcements`);
  const panel = page.getByRole('region', { name: '利用規約・プライバシーポリシー改定のお知らせ' });
  await panel.getByText('この改定のお知らせはまだ送信していません。').waitFor();
  await panel.getByText('現在 2名', { exact: false }).waitFor();
  await accessible(page, 'not sent yet');

  await panel.getByRole('button', { name: '文面を表示' }).click();
  const text = panel.getByRole('region', { name: '改定のお知らせの文面' });
  await text.getByText('施行日：2026年12月28日 00:00（日本時間）', { exact: false }).waitFor();
  expect(await text.innerText()).toContain('/terms');
  await accessible(page, 'the text shown');

  await panel.getByRole('button', { name: 'テストメールを自分に送る' }).click();
  await panel.getByText(`${ADMIN.email} 宛てにテスト送信します。`, { exact: false }).waitFor();
  await smtp.waitFor((m) => m.subject === `【${site.shopName}】［テスト送信］利用規約・プライバシーポリシー改定のお知らせ`);

  await panel.getByRole('button', { name: '改定のお知らせを送信' }).click();
  expect(await confirmInDialog(page)).toContain('会員2名全員');
  await panel.getByText('改定のお知らせの送信を開始しました。', { exact: false }).waitFor();
  const record = panel.getByRole('list', { name: 'この改定のお知らせの送信記録' });
  await record.getByText('送信済み 2／2件', { exact: false }).waitFor({ timeout: 30_000 });
  expect(await record.innerText()).toContain(ADMIN.email);
  await smtp.waitFor((m) => m.subject === SUBJECT && smtp.to(member.email)(m));
  // The history lists it as a legal notice.
  await page.getByRole('table', { name: 'お知らせ配信の履歴' }).getByText('規約改定の通知').waitFor();
  await accessible(page, 'sent');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

  // A second send says when and by whom the first went; declining sends nothing.
  await panel.getByRole('button', { name: '改定のお知らせを再送信' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  expect(await dialog.innerText()).toContain('この改定のお知らせは送信済みです。');
  expect(await dialog.innerText()).toContain(ADMIN.email);
  await accessible(page, 'second send dialog');
  await dialog.getByRole('button', { name: 'キャンセル' }).click();
  await dialog.waitFor({ state: 'hidden' });
  expect(await record.getByRole('listitem').count()).toBe(1);
  expect(smtp.messages.filter((m) => m.subject === SUBJECT)).toHaveLength(2);
});
