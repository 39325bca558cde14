import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aMember } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';
import { enrolAdmin, passTwoFactor } from '../support/two-factor-browser.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;

beforeAll(async () => {
  app = await startTestServer();
  await createOrPromoteAdmin(app.runtime.deps.orm, { email: 'kana-admin@example.jp', password: 'kana-admin-pass' });
  await enrolAdmin(app.app, { email: 'kana-admin@example.jp', password: 'kana-admin-pass' });
  for (const [email, last, first, lastKana, firstKana] of [
    ['watanabe@example.jp', '渡邊', '一郎', 'ワタナベ', 'イチロウ'],
    ['abe@example.jp', '安倍', '二郎', 'アベ', 'ジロウ'],
    ['takahashi@example.jp', '髙橋', '三郎', 'タカハシ', 'サブロウ'],
    ['nokana@example.jp', '秋山', '四郎', null, null],
  ] as const) {
    await aMember(app.runtime.deps.orm, {
      email,
      password: 'member-pass-123',
      lastName: last,
      firstName: first,
      lastNameKana: lastKana,
      firstNameKana: firstKana,
      emailVerified: true,
      affiliation: 4,
      affiliationName: '本部',
    });
  }
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const accessible = async (page: Page, name: string) => expect(await axeViolations(page), name).toEqual([]);

it('registration asks for フリガナ at 375 px, and registers it in 全角カタカナ', async () => {
  const page = await browser.newPage({ viewport: { width: 375, height: 812 } });
  await page.goto(`${app.baseUrl}/users/registration`);
  await page.getByLabel('セイ', { exact: true }).waitFor();
  await accessible(page, 'registration at 375 px');

  const email = 'kana-journey@example.jp';
  await page.getByLabel('メールアドレス', { exact: true }).fill(email);
  await page.getByLabel('メールアドレス（確認）').fill(email);
  await page.getByLabel('姓', { exact: true }).fill('山田');
  await page.getByLabel('名', { exact: true }).fill('太郎');
  await page.getByLabel('所属', { exact: true }).selectOption('4');
  await page.getByLabel('所属名').fill('〇〇市消防局');
  await page.getByLabel('パスワード（8〜72文字）').fill('voyage-pass-1');
  await page.getByLabel('パスワード（確認）').fill('voyage-pass-1');
  // Without フリガナ: asked for, beside the server's own answer.
  await page.getByRole('button', { name: '確認画面へ進む' }).click();
  await page.getByText('セイ（フリガナ）を入力してください。').first().waitFor();
  await page.getByText('メイ（フリガナ）を入力してください。').first().waitFor();
  await accessible(page, 'registration errors at 375 px');
  // Something that is not kana: the server's message.
  await page.getByLabel('セイ', { exact: true }).fill('Yamada');
  await page.getByLabel('メイ', { exact: true }).fill('たろう');
  await page.getByRole('button', { name: '確認画面へ進む' }).click();
  await page.getByText('セイ（フリガナ）は全角カタカナで入力してください。').first().waitFor();
  // Hiragana and half-width katakana are registered as 全角カタカナ.
  await page.getByLabel('セイ', { exact: true }).fill('ﾔﾏﾀﾞ');
  await page.getByRole('button', { name: '確認画面へ進む' }).click();
  await page.waitForURL('**/users/registration/confirm');
  expect(await page.locator('.summary').textContent()).toContain('ヤマダ タロウ');
  await accessible(page, 'registration confirm at 375 px');
  await page.getByRole('button', { name: '登録する' }).click();
  await page.waitForURL('**/users/registration/complete');
  const [row] = await app.runtime.deps.orm.em
    .fork()
    .execute<{ last_name_kana: string; first_name_kana: string }[]>(
      'select last_name_kana, first_name_kana from users where email = ?',
      [email],
    );
  expect(row).toEqual({ last_name_kana: 'ヤマダ', first_name_kana: 'タロウ' });
  await page.close();
});

it('the administrators’ list shows フリガナ, orders by 五十音, finds kana and 異体字, and downloads the member CSV', async () => {
  const page = await browser.newPage({ acceptDownloads: true });
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill('kana-admin@example.jp');
  await page.getByLabel('パスワード').fill('kana-admin-pass');
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, 'kana-admin@example.jp');
  await page.waitForURL('**/admin');
  await page.goto(`${app.baseUrl}/admin/users`);
  await page.getByRole('link', { name: '渡邊 一郎' }).waitFor();
  const row = (name: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name }) });
  expect(await row('渡邊 一郎').textContent()).toContain('ワタナベ イチロウ');
  expect(await row('秋山 四郎').textContent()).toContain('フリガナ未登録');
  // The administrator's own sign-in is recorded.
  expect(await row('管理者').textContent()).not.toContain('記録なし');
  await accessible(page, 'user list with フリガナ');

  await page.getByLabel('並び順').selectOption('kana');
  await page.waitForURL(/sort=kana/);
  // The earlier order's rows (and a moment of loading) may still show: wait for the 五十音 order itself.
  await vi.waitFor(
    async () => {
      const names = await page.locator('tbody tr td:first-child a').allTextContents();
      const members = names.filter((name) => ['渡邊 一郎', '安倍 二郎', '髙橋 三郎', '秋山 四郎', '山田 太郎'].includes(name));
      expect(members).toEqual(['安倍 二郎', '髙橋 三郎', '山田 太郎', '渡邊 一郎', '秋山 四郎']);
    },
    { timeout: 15_000, interval: 100 },
  );

  await page.getByLabel('氏名・フリガナ（一部）').fill('たかはし');
  await page.getByRole('button', { name: '検索する' }).click();
  await page.waitForURL(/name=/);
  await page.getByText('全1件').waitFor();
  await page.getByRole('link', { name: '髙橋 三郎' }).waitFor();
  await page.getByLabel('氏名・フリガナ（一部）').fill('渡辺');
  await page.getByRole('button', { name: '検索する' }).click();
  await page.getByRole('link', { name: '渡邊 一郎' }).waitFor();
  expect(await page.getByRole('link', { name: '髙橋 三郎' }).count()).toBe(0);

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'CSVをダウンロード' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^会員一覧_\d{8}-\d{4}\.csv$/);
  const csv = (await readFile((await download.path()) as string, 'utf8')).replace(/^\ufeff/, '');
  const lines = csv.trim().split('\r\n');
  expect(lines).toHaveLength(2);
  expect(lines[1]).toMatch(/^渡邊,一郎,ワタナベ,イチロウ,watanabe@example\.jp,/);
  await page.getByText('1件の会員をCSVに書き出しました。').waitFor();
  await accessible(page, 'user list after the download');

  await page.getByRole('link', { name: '渡邊 一郎' }).click();
  await page.locator('.summary').waitFor();
  const summary = await page.locator('.summary').textContent();
  expect(summary).toContain('ワタナベ イチロウ');
  expect(summary).toContain('最終ログイン記録なし');
  await accessible(page, 'user detail with フリガナ');
  await page.close();
});
