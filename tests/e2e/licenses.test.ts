import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Em } from '../../src/db/orm.ts';
import { transact } from '../../src/events/outbox.ts';
import { createOrPromoteAdmin, createUser } from '../../src/modules/accounts/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { jpegWithGps, png } from '../support/images.ts';
import { startTestServer } from '../support/server.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
const dir = mkdtempSync(join(tmpdir(), 'shop-e2e-pictures-'));
const first = join(dir, 'first-photo.jpg');
const second = join(dir, 'second.png');
const third = join(dir, 'third.png');

beforeAll(async () => {
  app = await startTestServer();
  await createOrPromoteAdmin(app.runtime.deps.orm, { email: 'lic-admin@example.jp', password: 'lic-admin-pass' });
  await transact(app.runtime.deps.orm.em as Em, (tx) =>
    createUser(tx, {
      email: 'lic-member@example.jp',
      password: 'lic-member-pass',
      lastName: '購入',
      firstName: '希望',
      emailVerified: true,
    }),
  );
  writeFileSync(first, await jpegWithGps(800, 600));
  writeFileSync(second, await png(400, 300, { r: 20, g: 120, b: 60 }));
  writeFileSync(third, await png(400, 300, { r: 120, g: 20, b: 160 }));
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
  await page.getByRole('button', { name: 'ログインする' }).click();
}
const accessible = async (page: Page, name: string) => expect(await axeViolations(page), name).toEqual([]);

describe('licences in Chromium', () => {
  it('an administrator creates a licence with two pictures, edits it, and a member sees it', async () => {
    const page = await browser.newPage();
    await signIn(page, 'lic-admin@example.jp', 'lic-admin-pass');
    await page.waitForURL('**/admin');
    await page.getByRole('link', { name: 'ライセンス一覧' }).click();
    await page.getByText('ライセンスはまだ登録されていません', { exact: false }).waitFor();
    await accessible(page, 'admin list (empty)');
    await page.getByRole('link', { name: '新規登録' }).click();
    await page.waitForURL('**/admin/licenses/create');

    await page.getByLabel('ライセンス名（100文字まで）').fill('ACLS 二次救命処置ライセンス');
    await page.getByLabel('説明（5,000文字まで）').fill('二次救命処置を学ぶ講習です。\n修了後に認定証を発行します。');
    await page.getByLabel('価格（円・税込、50〜9,999,999）').fill('11000');
    await page.locator('input[type=file]').setInputFiles([first, second]);
    await page.getByAltText('2枚目：second.png').waitFor();
    await accessible(page, 'create form');
    await page.screenshot({ path: 'test-results/licence-form.png', fullPage: true });
    await page.getByRole('button', { name: '確認画面へ進む' }).click();
    await page.waitForURL('**/admin/licenses/create/confirm');
    await page.getByText('¥11,000（税込）').waitFor();
    await accessible(page, 'create confirm');

    // Back keeps the form; coming from elsewhere starts afresh (seed §2).
    await page.getByRole('button', { name: '入力画面に戻る' }).click();
    await page.waitForURL('**/admin/licenses/create');
    expect(await page.getByLabel('価格（円・税込、50〜9,999,999）').inputValue()).toBe('11000');
    await page.getByRole('button', { name: '確認画面へ進む' }).click();
    await page.waitForURL('**/admin/licenses/create/confirm');
    await page.getByRole('button', { name: '登録する' }).click();
    await page.waitForURL(/\/admin\/licenses\/\d+$/);
    await page.getByText('ライセンスを登録しました。').waitFor();
    const detailUrl = page.url();
    await page.locator('.gallery-thumbs img').nth(1).waitFor();
    expect(await page.locator('.gallery-thumbs img').count()).toBe(2);

    await page.goto(`${app.baseUrl}/admin/licenses/create`);
    expect(await page.getByLabel('ライセンス名（100文字まで）').inputValue()).toBe('');

    // Edit: new price, drop the second picture, add a third.
    await page.goto(detailUrl);
    await page.getByRole('link', { name: '編集する' }).click();
    await page.getByLabel('価格（円・税込、50〜9,999,999）').fill('12100');
    await page.getByRole('button', { name: '2枚目を削除' }).click();
    await page.locator('input[type=file]').setInputFiles([third]);
    await accessible(page, 'edit form');
    await page.getByRole('button', { name: '確認画面へ進む' }).click();
    await page.waitForURL('**/edit/confirm');
    await page.getByText('¥12,100（税込）').waitFor();
    await page.getByRole('button', { name: '更新する' }).click();
    await page.waitForURL(detailUrl);
    await page.getByText('ライセンスを更新しました。').waitFor();
    await page.getByText('¥12,100（税込）').waitFor();

    await page.goto(`${app.baseUrl}/admin/licenses`);
    await page.getByRole('link', { name: 'ACLS 二次救命処置ライセンス' }).waitFor();
    await accessible(page, 'admin list');
    await page.close();

    const member = await browser.newPage();
    await signIn(member, 'lic-member@example.jp', 'lic-member-pass');
    await member.waitForURL(/\/users\//);
    await member.getByRole('navigation', { name: '会員メニュー' }).getByRole('link', { name: 'ライセンス一覧' }).click();
    await member.waitForURL('**/licenses');
    const card = member.locator('.license-card', { hasText: 'ACLS 二次救命処置ライセンス' });
    await card.waitFor();
    expect(await card.locator('.card-price').textContent()).toBe('¥12,100（税込）');
    await accessible(member, 'catalogue');
    await card.getByRole('link').click();
    await member.waitForURL(/\/licenses\/\d+$/);
    await member.getByText('修了後に認定証を発行します。').waitFor();
    expect(await member.locator('.price').textContent()).toBe('¥12,100（税込）');
    await accessible(member, 'licence detail');
    await member.screenshot({ path: 'test-results/licence-detail.png', fullPage: true });

    await member.goto(`${app.baseUrl}/licenses/999999`);
    await member.getByText('エラー: ライセンスが見つかりませんでした。').waitFor();
    await member.close();
  });

  it('an administrator hides a licence from members, and deletes one nobody bought', async () => {
    const page = await browser.newPage();
    await signIn(page, 'lic-admin@example.jp', 'lic-admin-pass');
    await page.waitForURL('**/admin');
    await page.goto(`${app.baseUrl}/admin/licenses/create`);
    await page.getByLabel('ライセンス名（100文字まで）').fill('PALS 非公開テスト');
    await page.getByLabel('価格（円・税込、50〜9,999,999）').fill('5500');
    await page.getByLabel('公開する（会員の一覧に表示し、購入できるようにする）').uncheck();
    await page.getByRole('button', { name: '確認画面へ進む' }).click();
    await page.getByText('非公開（会員には表示しない）').waitFor();
    await page.getByRole('button', { name: '登録する' }).click();
    await page.getByText('ライセンスを登録しました。').waitFor();
    const detailUrl = page.url();
    await page.getByText('非公開（会員には表示しない）').waitFor();
    await page.goto(`${app.baseUrl}/admin/licenses`);
    await page.locator('tr', { hasText: 'PALS 非公開テスト' }).locator('.tag', { hasText: '非公開' }).waitFor();
    await accessible(page, 'admin list with a hidden licence');

    const member = await browser.newPage();
    await signIn(member, 'lic-member@example.jp', 'lic-member-pass');
    await member.waitForURL(/\/users\//);
    await member.goto(`${app.baseUrl}/licenses`);
    await member.locator('.license-card').first().waitFor();
    expect(await member.locator('.license-card', { hasText: 'PALS 非公開テスト' }).count()).toBe(0);
    await member.goto(detailUrl.replace('/admin', ''));
    await member.getByText('エラー: ライセンスが見つかりませんでした。').waitFor();
    await member.close();

    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(detailUrl);
    await page.getByRole('button', { name: '削除する' }).click();
    await page.waitForURL('**/admin/licenses');
    await page.getByText('ライセンスを削除しました。').waitFor();
    expect(await page.locator('tr', { hasText: 'PALS 非公開テスト' }).count()).toBe(0);
    await page.close();
  });
});
