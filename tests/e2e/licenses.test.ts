import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { confirmInDialog } from '../support/confirm-dialog.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { jpegWithGps, png } from '../support/images.ts';
import { startTestServer } from '../support/server.ts';
import { enrolAdmin, passTwoFactor } from '../support/two-factor-browser.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
/** A second administrator, speaking to the same server's API (another desk, another browser). */
let colleague: TestClient;
const dir = mkdtempSync(join(tmpdir(), 'shop-e2e-pictures-'));
const first = join(dir, 'first-photo.jpg');
const second = join(dir, 'second.png');
const third = join(dir, 'third.png');

beforeAll(async () => {
  app = await startTestServer();
  await createOrPromoteAdmin(app.runtime.deps.orm, { email: 'lic-admin@example.jp', password: 'lic-admin-pass' });
  await enrolAdmin(app.app, { email: 'lic-admin@example.jp', password: 'lic-admin-pass' });
  await createOrPromoteAdmin(app.runtime.deps.orm, { email: 'lic-admin2@example.jp', password: 'lic-admin2-pass' });
  await enrolAdmin(app.app, { email: 'lic-admin2@example.jp', password: 'lic-admin2-pass' });
  colleague = new TestClient(app.app, '10.7.0.2');
  expect((await colleague.login('lic-admin2@example.jp', 'lic-admin2-pass')).status).toBe(200);
  await aMember(app.runtime.deps.orm, {
    email: 'lic-member@example.jp',
    password: 'lic-member-pass',
    lastName: '購入',
    firstName: '希望',
    emailVerified: true,
  });
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
  const signingInAs = await page.getByLabel('メールアドレス').inputValue();
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, signingInAs);
}
const accessible = async (page: Page, name: string) => expect(await axeViolations(page), name).toEqual([]);

interface ApiLicense {
  id: number;
  name: string;
  price: number;
  published: boolean;
  updated_at: string;
  pictures: { filename: string; url: string; original_name: string }[];
}

/** A licence made (or changed) by the other administrator through the API, as the SPA would send it. */
async function colleagueSaves(path: string, fields: Record<string, string>, files: [string, Buffer][] = []) {
  const body = new FormData();
  for (const [name, value] of Object.entries({ description: '', ...fields })) body.append(name, value);
  files.forEach(([name, data], i) => {
    body.append(`file[${i}]`, new Blob([new Uint8Array(data)]), name);
  });
  const res = await colleague.request('POST', path, { body });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return (await res.json()).license as ApiLicense;
}
const stored = async (id: number) => (await (await colleague.get(`/api/licenses/${id}`)).json()).license as ApiLicense;
const pictureNames = (license: ApiLicense) => license.pictures.map((p) => p.original_name);

/** The form's pictures (alt texts, in order) once `count` are there and really drawn: a draft's files come back as Blobs, not dead links. */
async function picturesShown(page: Page, count: number): Promise<string[]> {
  await page.waitForFunction((n) => {
    const images = Array.from(document.querySelectorAll<HTMLImageElement>('.picture-list img'));
    return images.length === n && images.every((img) => img.complete && img.naturalWidth > 0);
  }, count);
  return page.locator('.picture-list img').evaluateAll((imgs) => imgs.map((img) => img.getAttribute('alt') ?? ''));
}
const priceField = (page: Page) => page.getByLabel('価格（円・税込、50〜9,999,999）');
const nameField = (page: Page) => page.getByLabel('ライセンス名（100文字まで）');

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

    await page.goto(detailUrl);
    await page.getByRole('button', { name: '削除する' }).click();
    expect(await confirmInDialog(page)).toContain('「PALS 非公開テスト」を削除します。元に戻せません。');
    await page.waitForURL('**/admin/licenses');
    await page.getByText('ライセンスを削除しました。').waitFor();
    expect(await page.locator('tr', { hasText: 'PALS 非公開テスト' }).count()).toBe(0);
    await page.close();
  });

  it('publish → hide: once an administrator sets a licence 非公開, a member no longer sees it, opens it or buys it', async () => {
    const license = await colleagueSaves('/api/licenses/create', {
      name: 'ICLS 公開後に非公開',
      price: '8800',
      published: 'true',
    });
    const member = await browser.newPage();
    await signIn(member, 'lic-member@example.jp', 'lic-member-pass');
    await member.waitForURL(/\/users\//);
    await member.goto(`${app.baseUrl}/licenses`);
    await member.locator('.license-card', { hasText: 'ICLS 公開後に非公開' }).getByRole('link').click();
    await member.getByRole('link', { name: '購入手続きへ進む' }).click();
    await member.waitForURL(`**/licenses/${license.id}/procedure`);
    await member.getByRole('button', { name: 'お支払いへ進む' }).waitFor();

    // Meanwhile the administrator hides it: edit, untick 公開, confirm, save.
    const page = await browser.newPage();
    await signIn(page, 'lic-admin@example.jp', 'lic-admin-pass');
    await page.waitForURL('**/admin');
    await page.goto(`${app.baseUrl}/admin/licenses/${license.id}`);
    await page.getByText('公開（会員に表示し、購入できる）').waitFor();
    await page.getByRole('link', { name: '編集する' }).click();
    await page.getByLabel('公開する（会員の一覧に表示し、購入できるようにする）').uncheck();
    await page.getByRole('button', { name: '確認画面へ進む' }).click();
    await page.waitForURL('**/edit/confirm');
    await page.getByText('非公開（会員には表示しない）').waitFor();
    await page.getByRole('button', { name: '更新する' }).click();
    await page.getByText('ライセンスを更新しました。').waitFor();
    await page.getByText('非公開（会員には表示しない）').waitFor();
    await page.close();
    expect((await stored(license.id)).published).toBe(false);

    // The member's open procedure page cannot start a payment any more…
    await member.getByRole('button', { name: 'お支払いへ進む' }).click();
    await member.getByText('このライセンスは現在販売していません。').waitFor();
    expect(member.url()).toContain(`/licenses/${license.id}/procedure`);
    // …the catalogue no longer lists it, and its detail and procedure pages are refused.
    await member.goto(`${app.baseUrl}/licenses`);
    await member.locator('.license-card').first().waitFor();
    expect(await member.locator('.license-card', { hasText: 'ICLS 公開後に非公開' }).count()).toBe(0);
    await member.goto(`${app.baseUrl}/licenses/${license.id}`);
    await member.getByText('エラー: ライセンスが見つかりませんでした。').waitFor();
    expect(await member.getByRole('link', { name: '購入手続きへ進む' }).count()).toBe(0);
    await member.goto(`${app.baseUrl}/licenses/${license.id}/procedure`);
    await member.getByText('エラー: ライセンスが見つかりませんでした。').waitFor();
    expect(await member.getByRole('button', { name: 'お支払いへ進む' }).count()).toBe(0);
    await member.close();
  });

  it('keeps a create draft with its pictures through the confirm page, browser Back and reloads, until saved or abandoned', async () => {
    const page = await browser.newPage();
    await signIn(page, 'lic-admin@example.jp', 'lic-admin-pass');
    await page.waitForURL('**/admin');
    await page.getByRole('link', { name: 'ライセンス一覧' }).click();
    await page.getByRole('link', { name: '新規登録' }).click();
    await page.waitForURL('**/admin/licenses/create');
    await nameField(page).fill('JPTEC 下書きテスト');
    await page.getByLabel('説明（5,000文字まで）').fill('外傷病院前救護の講習です。');
    await priceField(page).fill('１２，０００');
    await page.locator('input[type=file]').setInputFiles([first, second]);
    await page.getByRole('button', { name: '2枚目を前へ' }).click();
    expect(await picturesShown(page, 2)).toEqual(['1枚目：second.png', '2枚目：first-photo.jpg']);
    await page.getByRole('button', { name: '確認画面へ進む' }).click();
    await page.waitForURL('**/admin/licenses/create/confirm');
    await page.getByText('¥12,000（税込）').waitFor();

    // Browser Back: the form comes back whole, pictures in their order.
    await page.goBack();
    await page.waitForURL('**/admin/licenses/create');
    await expect.poll(() => nameField(page).inputValue()).toBe('JPTEC 下書きテスト');
    expect(await page.getByLabel('説明（5,000文字まで）').inputValue()).toBe('外傷病院前救護の講習です。');
    expect(await priceField(page).inputValue()).toBe('１２，０００');
    expect(await picturesShown(page, 2)).toEqual(['1枚目：second.png', '2枚目：first-photo.jpg']);

    // A reload too (the files come back from the browser's storage), and a change made after it is kept.
    await page.reload();
    await page.getByText('保存していない入力内容を表示しています。').waitFor();
    expect(await nameField(page).inputValue()).toBe('JPTEC 下書きテスト');
    expect(await picturesShown(page, 2)).toEqual(['1枚目：second.png', '2枚目：first-photo.jpg']);
    await accessible(page, 'create form with a restored draft');
    await priceField(page).fill('13000');
    // The draft is written to IndexedDB as the field changes; reload once the write has landed (a
    // reload in the same instant would abort the write, as closing the tab would).
    await page.waitForFunction(
      () =>
        new Promise<boolean>((resolve) => {
          const open = indexedDB.open('license-drafts');
          open.onerror = () => resolve(false);
          open.onsuccess = () => {
            const all = open.result.transaction('drafts').objectStore('drafts').getAll();
            all.onerror = () => resolve(false);
            all.onsuccess = () =>
              resolve(
                (all.result as { values: Record<string, unknown> }[]).some((d) => JSON.stringify(d.values).includes('13000')),
              );
          };
        }),
      undefined,
      { timeout: 10_000 },
    );
    await page.reload();
    await page.getByText('保存していない入力内容を表示しています。').waitFor();
    expect(await priceField(page).inputValue()).toBe('13000');
    await picturesShown(page, 2);

    // The confirm page survives a reload as well, and saving sends what was arranged.
    await page.getByRole('button', { name: '確認画面へ進む' }).click();
    await page.waitForURL('**/admin/licenses/create/confirm');
    await page.reload();
    await page.getByText('¥13,000（税込）').waitFor();
    await page.getByRole('button', { name: '登録する' }).click();
    await page.waitForURL(/\/admin\/licenses\/\d+$/);
    await page.getByText('ライセンスを登録しました。').waitFor();
    const saved = await stored(Number(page.url().split('/').pop()));
    expect(saved).toMatchObject({ name: 'JPTEC 下書きテスト', price: 13000 });
    expect(pictureNames(saved)).toEqual(['second.png', 'first-photo.jpg']);

    // Saved: the draft is gone, whether the form is entered anew or reached by Back.
    await page.goBack();
    await page.waitForURL('**/admin/licenses/create');
    await page.getByRole('button', { name: '確認画面へ進む' }).waitFor();
    expect(await nameField(page).inputValue()).toBe('');
    expect(await page.locator('.picture-list img').count()).toBe(0);

    // Abandoned with 「入力内容を破棄」: gone for good, reload included.
    await nameField(page).fill('破棄する下書き');
    await page.locator('input[type=file]').setInputFiles([third]);
    await picturesShown(page, 1);
    await page.reload();
    expect(await nameField(page).inputValue()).toBe('破棄する下書き');
    await page.getByRole('button', { name: '入力内容を破棄' }).click();
    expect(await confirmInDialog(page)).toContain('追加した画像も含め、元に戻せません。');
    await page.getByText('入力内容を破棄しました。').waitFor();
    expect(await nameField(page).inputValue()).toBe('');
    expect(await page.locator('.picture-list img').count()).toBe(0);
    await page.reload();
    await page.getByRole('button', { name: '確認画面へ進む' }).waitFor();
    expect(await nameField(page).inputValue()).toBe('');
    expect(await page.locator('.picture-list img').count()).toBe(0);

    // Entering the form from elsewhere starts afresh (seed §2), and offers the draft left behind.
    await nameField(page).fill('残した下書き');
    await page.locator('input[type=file]').setInputFiles([third]);
    await picturesShown(page, 1);
    await page.getByRole('link', { name: 'ライセンス一覧' }).click();
    await page.getByRole('link', { name: '新規登録' }).click();
    await page.getByText('保存していない入力内容があります').waitFor();
    expect(await nameField(page).inputValue()).toBe('');
    await accessible(page, 'create form offering a draft');
    await page.getByRole('button', { name: '入力内容を復元する' }).click();
    await page.getByText('保存していなかった入力内容を復元しました。').waitFor();
    expect(await nameField(page).inputValue()).toBe('残した下書き');
    expect(await picturesShown(page, 1)).toEqual(['1枚目：third.png']);
    await page.getByRole('button', { name: '入力内容を破棄' }).click();
    await confirmInDialog(page);
    await page.getByText('入力内容を破棄しました。').waitFor();

    // Signing out leaves no draft behind in this browser.
    await nameField(page).fill('サインアウト前の下書き');
    await page.locator('input[type=file]').setInputFiles([third]);
    await picturesShown(page, 1);
    await page.getByRole('button', { name: 'ログアウト' }).click();
    await page.waitForURL('**/logout');
    const left = await page.evaluate(
      () =>
        new Promise<number>((resolve, reject) => {
          const open = indexedDB.open('license-drafts', 1);
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const count = open.result.transaction('drafts').objectStore('drafts').count();
            count.onsuccess = () => resolve(count.result);
          };
        }),
    );
    expect(left).toBe(0);
    await page.close();
  });

  it('saves a new picture placed before a stored one in exactly that order', async () => {
    const license = await colleagueSaves(
      '/api/licenses/create',
      { name: 'MCLS 並び順テスト', price: '6600', published: 'true' },
      [['stored-first.png', await png(300, 200, { r: 200, g: 200, b: 20 })]],
    );
    const page = await browser.newPage();
    await signIn(page, 'lic-admin@example.jp', 'lic-admin-pass');
    await page.waitForURL('**/admin');
    await page.goto(`${app.baseUrl}/admin/licenses/${license.id}/edit`);
    expect(await picturesShown(page, 1)).toEqual(['1枚目：stored-first.png']);
    await page.locator('input[type=file]').setInputFiles([second]);
    expect(await picturesShown(page, 2)).toEqual(['1枚目：stored-first.png', '2枚目：second.png']);
    await page.getByRole('button', { name: '2枚目を前へ' }).click();
    expect(await picturesShown(page, 2)).toEqual(['1枚目：second.png', '2枚目：stored-first.png']);
    await accessible(page, 'edit form with a new picture first');
    await page.getByRole('button', { name: '確認画面へ進む' }).click();
    await page.waitForURL('**/edit/confirm');
    const previewFirst = await page.locator('.gallery-main').getAttribute('src');
    expect(previewFirst).toMatch(/^blob:/);
    await page.getByRole('button', { name: '更新する' }).click();
    await page.getByText('ライセンスを更新しました。').waitFor();

    const saved = await stored(license.id);
    expect(pictureNames(saved)).toEqual(['second.png', 'stored-first.png']);
    expect(saved.pictures[1]?.filename).toBe(license.pictures[0]?.filename);
    // The detail page shows the saved order once its data is revalidated after the update.
    await expect.poll(() => page.locator('.gallery-main').getAttribute('src')).toBe(saved.pictures[0]?.url);
    await page.close();
  });

  it('after a 409 「最新の内容を読み込む」 puts the latest licence in the form, keeping nothing stale', async () => {
    const license = await colleagueSaves('/api/licenses/create', { name: 'BLS 競合テスト', price: '5000', published: 'true' }, [
      ['original.png', await png(200, 200, { r: 10, g: 10, b: 200 })],
    ]);
    const page = await browser.newPage();
    await signIn(page, 'lic-admin@example.jp', 'lic-admin-pass');
    await page.waitForURL('**/admin');
    await page.goto(`${app.baseUrl}/admin/licenses/${license.id}/edit`);
    await nameField(page).fill('BLS 私の変更');
    await page.locator('input[type=file]').setInputFiles([third]);
    await picturesShown(page, 2);
    await page.getByRole('button', { name: '確認画面へ進む' }).click();
    await page.waitForURL('**/edit/confirm');

    // The other administrator saves first: new name and price, and the picture is gone.
    const theirs = await colleagueSaves(`/api/licenses/${license.id}`, {
      name: 'BLS 他の管理者の変更',
      price: '9900',
      updated_at: license.updated_at,
    });
    await page.getByRole('button', { name: '更新する' }).click();
    await page.getByText('他の管理者がこのライセンスを先に更新しました。').waitFor();
    expect(await page.getByRole('button', { name: '更新する' }).isDisabled()).toBe(true);
    await accessible(page, 'confirm page after a 409');

    await page.getByRole('button', { name: '最新の内容を読み込む' }).click();
    await page.waitForURL(`**/admin/licenses/${license.id}/edit`);
    await page.getByText('最新の内容（', { exact: false }).waitFor();
    await page.getByText('入力していた変更（追加した画像を含む）は保存されておらず、破棄しました。', { exact: false }).waitFor();
    expect(await nameField(page).inputValue()).toBe('BLS 他の管理者の変更');
    expect(await priceField(page).inputValue()).toBe('9900');
    expect(await page.locator('.picture-list img').count()).toBe(0);
    // Reloading now shows the latest again, never the overtaken draft.
    await page.reload();
    await page.getByRole('button', { name: '確認画面へ進む' }).waitFor();
    expect(await nameField(page).inputValue()).toBe('BLS 他の管理者の変更');

    // Overtaken again while still on the form: the check before the confirm page answers 409 the same way.
    await priceField(page).fill('9999');
    const again = await colleagueSaves(`/api/licenses/${license.id}`, {
      name: 'BLS 二度目の変更',
      price: '9900',
      updated_at: theirs.updated_at,
    });
    await page.getByRole('button', { name: '確認画面へ進む' }).click();
    await page.getByText('他の管理者がこのライセンスを先に更新しました。').waitFor();
    expect(page.url()).toMatch(/\/edit$/);
    await page.getByRole('button', { name: '最新の内容を読み込む' }).click();
    await page.getByText('最新の内容（', { exact: false }).waitFor();
    expect(await nameField(page).inputValue()).toBe('BLS 二度目の変更');
    expect(await priceField(page).inputValue()).toBe('9900');

    // Editing on top of the latest version saves.
    await priceField(page).fill('10000');
    await page.getByRole('button', { name: '確認画面へ進む' }).click();
    await page.waitForURL('**/edit/confirm');
    await page.getByRole('button', { name: '更新する' }).click();
    await page.getByText('ライセンスを更新しました。').waitFor();
    const saved = await stored(license.id);
    expect(saved).toMatchObject({ name: 'BLS 二度目の変更', price: 10000 });
    expect(saved.updated_at).not.toBe(again.updated_at);
    expect(saved.pictures).toHaveLength(0);
    await page.close();
  });
});
