import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Em } from '../../src/db/orm.ts';
import { transact } from '../../src/events/outbox.ts';
import { createOrPromoteAdmin, createUser } from '../../src/modules/accounts/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { startTestServer } from '../support/server.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;

beforeAll(async () => {
  app = await startTestServer();
  await createOrPromoteAdmin(app.runtime.deps.orm, { email: 'users-admin@example.jp', password: 'users-admin-pass' });
  for (const [email, last, first, affiliation] of [
    ['kobayashi@example.jp', '小林', '一郎', 1],
    ['kato@example.jp', '加藤', '二郎', 3],
  ] as const) {
    await transact(app.runtime.deps.orm.em as Em, (tx) =>
      createUser(tx, {
        email,
        password: 'member-pass-123',
        lastName: last,
        firstName: first,
        emailVerified: true,
        affiliation,
        affiliationName: '本部',
      }),
    );
  }
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const accessible = async (page: Page, name: string) => expect(await axeViolations(page), name).toEqual([]);

it('an administrator searches, edits, resets a password and deletes a user', async () => {
  const page = await browser.newPage();
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill('users-admin@example.jp');
  await page.getByLabel('パスワード').fill('users-admin-pass');
  await page.getByRole('button', { name: 'ログインする' }).click();
  await page.waitForURL('**/admin');
  await page.getByRole('link', { name: 'ユーザー一覧' }).click();
  await page.waitForURL('**/admin/users');
  await page.getByRole('link', { name: '小林 一郎' }).waitFor();
  await accessible(page, 'user list');

  await page.getByLabel('所属').selectOption('3');
  await page.getByRole('button', { name: '検索する' }).click();
  await page.waitForURL(/affiliations=3/);
  await page.getByRole('link', { name: '加藤 二郎' }).waitFor();
  expect(await page.getByRole('link', { name: '小林 一郎' }).count()).toBe(0);

  await page.getByRole('link', { name: '加藤 二郎' }).click();
  await page.getByRole('heading', { name: '購入履歴' }).waitFor();
  await accessible(page, 'user detail');
  await page.getByRole('link', { name: '編集する' }).click();
  await page.getByLabel('所属名').fill('第三管区');
  await page.getByRole('button', { name: '確認画面へ進む' }).click();
  await page.waitForURL('**/edit/confirm');
  await page.getByRole('button', { name: '保存する' }).click();
  await page.getByText('会員情報を更新しました。').waitFor();
  expect(await page.locator('.summary').textContent()).toContain('第三管区');

  await page.getByRole('link', { name: 'パスワードを変更する' }).click();
  await page.getByLabel('新しいパスワード（8〜72文字）').fill('admin-set-pass-1');
  await page.getByLabel('新しいパスワード（確認）').fill('admin-set-pass-1');
  await accessible(page, 'force password');
  await page.getByRole('button', { name: 'パスワードを変更する' }).click();
  await page.getByText('すべての端末でログアウトされました', { exact: false }).waitFor();

  await page.getByRole('link', { name: '削除する' }).click();
  await page.getByText('この操作は取り消せません。').waitFor();
  await accessible(page, 'delete');
  await page.getByRole('button', { name: '削除する' }).click();
  await page.waitForURL(/\/admin\/users$/);
  await page.getByText('ユーザーを削除しました。', { exact: false }).waitFor();
  expect(await page.getByRole('link', { name: '加藤 二郎' }).count()).toBe(0);
  await page.close();
});
