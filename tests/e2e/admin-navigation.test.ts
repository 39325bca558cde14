import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { ADMIN_NAV } from '../../web/src/app/admin-nav.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aLicense, aMember, aSale } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';
import { enrolAdmin, passTwoFactor } from '../support/two-factor-browser.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
const ADMIN = { email: 'nav-admin@example.jp', password: 'nav-admin-pass-123' };
let adminId: string;
let member: Awaited<ReturnType<typeof aMember>>;
let soldLicense: number;
let unsoldLicense: number;

/** Words that must not reach an administrator's screen: English, developer names, a member's wording. */
const DENIED = [
  'EXPORT_GROUP_NAME',
  'Checkout Session',
  'failedジョブ',
  'failed→',
  '→sending',
  'attempts',
  'permanent',
  "Can't send mail",
  'undefined',
  'NaN',
  '[object Object]',
  '送信不可',
  '会員情報の変更',
  'お支払い済み（登録準備中）',
  'ご注文番号',
  '売上 #',
];

beforeAll(async () => {
  app = await startTestServer();
  const orm = app.runtime.deps.orm;
  await createOrPromoteAdmin(orm, ADMIN);
  await enrolAdmin(app.app, ADMIN);
  const [row] = await orm.em.fork().execute<{ id: string }[]>('select id from users where email = ?', [ADMIN.email]);
  adminId = row?.id as string;
  member = await aMember(orm, { email: 'nav-member@example.jp', lastName: '佐藤', firstName: '花子' });
  soldLicense = await aLicense(orm, { name: '販売済みのライセンス' });
  unsoldLicense = await aLicense(orm, { name: 'まだ売れていないライセンス' });
  await aSale(orm, soldLicense, { userId: member.id, email: member.email, lastName: '佐藤', firstName: '花子' });
  // A purchase started: from now on the licence can be hidden, not deleted (as noteCheckoutStarted records it).
  await orm.em.fork().execute('update licenses set checkout_started_at = now() where id = ?', [soldLicense]);
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function signIn(width: number): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill(ADMIN.email);
  await page.getByLabel('パスワード').fill(ADMIN.password);
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, ADMIN.email);
  await page.waitForURL('**/admin');
  return page;
}

/** The page drawn: its heading, and no loading line left. */
async function drawn(page: Page) {
  await page.getByRole('main').getByRole('heading', { level: 1 }).waitFor();
  await expect
    .poll(
      () =>
        page
          .getByRole('main')
          .getByText(/読み込んでいます|読み込み中/)
          .count(),
      { timeout: 10_000 },
    )
    .toBe(0);
}

async function deniedWords(page: Page): Promise<string[]> {
  const text = await page.locator('body').innerText();
  return DENIED.filter((word) => text.includes(word));
}

const SPA_SCREENS = ADMIN_NAV.filter((item) => !item.server);

describe('the administrator’s side menu', () => {
  it('at 1440 px: beside every admin screen, reaching every other one, the current one marked, axe-clean, in Japanese', async () => {
    const page = await signIn(1440);
    const inner = [
      `/admin/users/${member.id}`,
      `/admin/users/${member.id}/edit`,
      `/admin/users/${adminId}`,
      `/admin/licenses/${soldLicense}`,
      '/admin/licenses/create',
    ];
    for (const path of [...SPA_SCREENS.map((item) => item.to), ...inner]) {
      await page.goto(`${app.baseUrl}${path}`);
      await drawn(page);
      const nav = page.getByRole('navigation', { name: '管理メニュー' });
      expect(await nav.isVisible(), path).toBe(true);
      // Every admin screen, the queue dashboard included, from this one.
      const hrefs = await nav.getByRole('link').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
      expect(hrefs, path).toEqual(['/admin', ...ADMIN_NAV.map((item) => item.to)]);
      const current = await nav
        .locator('[aria-current]')
        .evaluateAll((links) => links.map((a) => `${a.textContent}=${a.getAttribute('aria-current')}`));
      const own = SPA_SCREENS.find((item) => item.to === path);
      if (own) expect(current, path).toEqual([`${own.label}=page`]);
      else expect(current.length, path).toBeLessThanOrEqual(1);
      expect(await axeViolations(page), path).toEqual([]);
      expect(await deniedWords(page), path).toEqual([]);
    }
    // The menu page itself lists every screen as a button, without the side menu (seed §2).
    await page.goto(`${app.baseUrl}/admin`);
    await drawn(page);
    expect(await page.getByRole('navigation', { name: '管理メニュー' }).count()).toBe(0);
    const buttons = page.getByRole('main').locator('ul.menu');
    for (const item of ADMIN_NAV) expect(await buttons.getByRole('link', { name: item.label, exact: true }).count()).toBe(1);
    expect(await deniedWords(page)).toEqual([]);

    // By keyboard: a link of the menu is focused and followed with Enter.
    await page.goto(`${app.baseUrl}/admin/users`);
    await drawn(page);
    const link = page.getByRole('navigation', { name: '管理メニュー' }).getByRole('link', { name: '操作履歴' });
    await link.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL('**/admin/audit');
    await drawn(page);
    expect(
      await page
        .getByRole('navigation', { name: '管理メニュー' })
        .getByRole('link', { name: '操作履歴' })
        .getAttribute('aria-current'),
    ).toBe('page');
    await page.screenshot({ path: 'test-results/admin-side-menu-1440.png', fullPage: true });
    await page.close();
  }, 180_000);

  it('at 375 px: a 「管理メニュー」 disclosure that opens, closes on Escape and after a move, axe-clean either way', async () => {
    const page = await signIn(375);
    for (const item of SPA_SCREENS) {
      await page.goto(`${app.baseUrl}${item.to}`);
      await drawn(page);
      const nav = page.getByRole('navigation', { name: '管理メニュー' });
      const toggle = nav.getByRole('button', { name: /^管理メニュー/ });
      expect(await toggle.getAttribute('aria-expanded'), item.to).toBe('false');
      expect(await nav.getByRole('link', { name: item.label, exact: true }).isVisible()).toBe(false);
      expect(await axeViolations(page), `${item.to} closed`).toEqual([]);
      await toggle.click();
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      expect(await nav.getByRole('link', { name: item.label, exact: true }).getAttribute('aria-current')).toBe('page');
      expect(await axeViolations(page), `${item.to} open`).toEqual([]);
      expect(await deniedWords(page), item.to).toEqual([]);
    }
    // Escape folds it and gives the focus back to its button.
    const nav = page.getByRole('navigation', { name: '管理メニュー' });
    const toggle = nav.getByRole('button', { name: /^管理メニュー/ });
    await nav.getByRole('link', { name: 'ユーザー一覧' }).focus();
    await page.keyboard.press('Escape');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await toggle.evaluate((b) => b === document.activeElement)).toBe(true);
    // A link followed: the next page starts with the menu folded.
    await page.keyboard.press('Enter');
    await nav.getByRole('link', { name: 'ユーザー一覧' }).click();
    await page.waitForURL('**/admin/users');
    await drawn(page);
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await page.screenshot({ path: 'test-results/admin-side-menu-375.png', fullPage: true });
    await page.close();
  }, 180_000);
});

describe('the admin screens’ defects (issue 24 item 9)', () => {
  it('決済の受信箱: the filter’s fields never cover each other at 768, 1024 and 1440 px; the session field in Japanese', async () => {
    const page = await signIn(1440);
    await page.goto(`${app.baseUrl}/admin/payments`);
    await drawn(page);
    const form = page.locator('#inbox form.search');
    await form.getByLabel('受信日（まで）').waitFor();
    expect(await form.getByLabel('Stripe の決済セッションID').count()).toBe(1);
    for (const width of [375, 768, 1024, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      const boxes = await form.locator('input, select').evaluateAll((fields) =>
        fields.map((f) => {
          const r = f.getBoundingClientRect();
          return { name: (f as HTMLInputElement).name, left: r.left, right: r.right, top: r.top, bottom: r.bottom };
        }),
      );
      expect(boxes.length).toBe(6);
      const formBox = await form.evaluate((f) => f.getBoundingClientRect().toJSON() as DOMRect);
      for (const a of boxes) {
        expect(a.left, `${a.name} at ${width}`).toBeGreaterThanOrEqual(formBox.left - 1);
        expect(a.right, `${a.name} at ${width}`).toBeLessThanOrEqual(formBox.right + 1);
        for (const b of boxes) {
          if (a === b) continue;
          const overlap = a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
          expect(overlap, `${a.name} and ${b.name} at ${width} px`).toBe(false);
        }
      }
      expect(await axeViolations(page), `${width} px`).toEqual([]);
    }
    // Nothing reconciled yet: said in a neutral note, not a success box.
    const none = page.getByText('照合はまだ実行されていません。');
    expect(await none.evaluate((el) => el.className)).toBe('info-note');
    await page.close();
  }, 120_000);

  it('one’s own page offers no role change or 削除する, saying why; another member’s does', async () => {
    const page = await signIn(1440);
    await page.goto(`${app.baseUrl}/admin/users/${adminId}`);
    await drawn(page);
    const reason = 'ご自身の役割を変えることや、ご自身のアカウントを削除することはできません。';
    for (const button of [
      page.getByRole('main').getByRole('combobox', { name: '役割' }),
      page.getByRole('main').getByRole('button', { name: '削除する', exact: true }),
    ]) {
      const name = (await button.getAttribute('id')) ?? 'button';
      expect(await button.isDisabled(), name).toBe(true);
      expect(
        await button.evaluate((b) => document.getElementById(b.getAttribute('aria-describedby') ?? '')?.textContent),
      ).toContain(reason);
    }
    expect(await axeViolations(page)).toEqual([]);
    // Opened directly, the delete page says why instead of offering the button.
    await page.goto(`${app.baseUrl}/admin/users/${adminId}/delete`);
    await page.getByText(reason).waitFor();
    expect(await page.getByRole('button', { name: '削除する' }).count()).toBe(0);

    await page.goto(`${app.baseUrl}/admin/users/${member.id}`);
    await drawn(page);
    expect(await page.getByRole('main').getByRole('link', { name: '削除する' }).count()).toBe(1);
    expect(await page.getByRole('main').getByRole('combobox', { name: '役割' }).isEnabled()).toBe(true);
    // The member's purchases in the back office's words, under 注文番号.
    const history = page.getByRole('region', { name: '購入履歴' });
    await history.getByRole('cell', { name: '出力待ち' }).waitFor();
    expect(await history.getByRole('columnheader', { name: '注文番号', exact: true }).count()).toBe(1);
    expect(await deniedWords(page)).toEqual([]);
    // The admin's edit page in the admin's words.
    await page.goto(`${app.baseUrl}/admin/users/${member.id}/edit`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('ユーザー情報の編集');
    await page.close();
  }, 60_000);

  it('a licence someone started to buy offers 削除する disabled with the reason; the API says which can be deleted', async () => {
    const page = await signIn(1440);
    const api = page.context().request;
    expect((await (await api.get(`${app.baseUrl}/api/licenses/${soldLicense}`)).json()).license.deletable).toBe(false);
    expect((await (await api.get(`${app.baseUrl}/api/licenses/${unsoldLicense}`)).json()).license.deletable).toBe(true);

    await page.goto(`${app.baseUrl}/admin/licenses/${soldLicense}`);
    await drawn(page);
    const remove = page.getByRole('button', { name: '削除する' });
    expect(await remove.isDisabled()).toBe(true);
    expect(
      await remove.evaluate((b) => document.getElementById(b.getAttribute('aria-describedby') ?? '')?.textContent),
    ).toContain('このライセンスは購入手続きが行われたため削除できません。');
    expect(await axeViolations(page)).toEqual([]);
    await page.goto(`${app.baseUrl}/admin/licenses/${unsoldLicense}`);
    await drawn(page);
    expect(await page.getByRole('button', { name: '削除する' }).isEnabled()).toBe(true);
    await page.close();
  }, 60_000);
});
