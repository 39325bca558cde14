import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aMember } from '../support/factories.ts';
import { png } from '../support/images.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { type ShopWithStripe, startShopWithStripe } from '../support/stripe.ts';
import { enrolAdmin, passTwoFactor } from '../support/two-factor-browser.ts';

/** A phone: every page at 375 px, by touch, in Chromium. */
const PHONE = { viewport: { width: 375, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const MEMBER = { email: 'phone-member@example.jp', password: 'phone-member-pass' };
const OTHER = { email: 'phone-other@example.jp', password: 'phone-other-pass' };
const ADMIN = { email: 'phone-admin@example.jp', password: 'phone-admin-pass' };

let shop: ShopWithStripe;
let smtp: TestSmtp;
let browser: Browser;
let licenseId: number;
let memberId: string;
let otherId: string;

beforeAll(async () => {
  smtp = await startSmtp();
  shop = await startShopWithStripe({ smtpUrl: smtp.url });
  const orm = shop.runtime.deps.orm;
  const actor = { id: 'test', email: 'test' };
  const license = await createLicense(
    orm,
    shop.runtime.deps.files,
    actor,
    {
      name: 'JPTEC 外傷病院前救護ガイドライン準拠トレーニングライセンス（長い名前の例）',
      description: '外傷の病院前救護を学びます。',
      price: 16500,
    },
    [{ field: 'file[0]', filename: 'jptec.png', data: await png() }],
  );
  licenseId = license.id;
  await createLicense(
    orm,
    shop.runtime.deps.files,
    actor,
    { name: 'ICLS 講習ライセンス', description: '心停止対応。', price: 5500 },
    [{ field: 'file[0]', filename: 'icls.png', data: await png() }],
  );
  const [member, other] = await Promise.all(
    [
      [MEMBER, '携帯', '一郎', '〇〇市消防局 中央消防署 救急第一係（長い所属名の例）'],
      [OTHER, '別人', '二郎', '〇〇病院'],
    ].map(([who, last, first, org]) =>
      aMember(orm, {
        email: (who as typeof MEMBER).email,
        password: (who as typeof MEMBER).password,
        lastName: last as string,
        firstName: first as string,
        emailVerified: true,
        affiliation: 1,
        affiliationName: org as string,
      }),
    ),
  );
  memberId = (member as { id: string }).id;
  otherId = (other as { id: string }).id;
  await createOrPromoteAdmin(orm, ADMIN);
  await enrolAdmin(shop.app, ADMIN);
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await shop?.stop();
  await smtp?.close();
});

/** A phone context that records console errors and uncaught exceptions. */
async function phone(): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext(PHONE);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || (m.type() === 'warning' && /HydrateFallback/.test(m.text())))
      errors.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  return { context, page, errors };
}

async function signIn(page: Page, who: { email: string; password: string }) {
  await page.goto(`${shop.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill(who.email);
  await page.getByLabel('パスワード').fill(who.password);
  const signingInAs = await page.getByLabel('メールアドレス').inputValue();
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, signingInAs);
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
}

/** Waits until the page has drawn its content (no loading line, no overlay), then checks it at 375 px. */
async function check(page: Page, name: string) {
  await page.locator('h1').first().waitFor();
  await page.waitForFunction(() => !document.querySelector('.loading, .overlay, .card-skeleton'));
  const layout = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    h1: document.querySelectorAll('h1').length,
    wide: [...document.querySelectorAll<HTMLElement>('body *')]
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5 && !e.closest('.table-wrap'))
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className}`),
  }));
  expect(layout.scrollWidth, `${name}: page width (${layout.wide.join(', ')})`).toBeLessThanOrEqual(375);
  expect(layout.h1, `${name}: h1 count`).toBe(1);
  expect(await axeViolations(page), name).toEqual([]);
}

describe('the shop on a 375 px phone', () => {
  it('serves a favicon and warns nothing on a full load', async () => {
    const { context, page, errors } = await phone();
    const icon = await page.request.get(`${shop.baseUrl}/favicon.ico`);
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toMatch(/image\/(x-icon|vnd\.microsoft\.icon)/);
    await page.goto(`${shop.baseUrl}/login`);
    expect(await page.locator('link[rel="icon"]').count()).toBeGreaterThan(0);
    await check(page, 'login');
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it('publishes a privacy policy with what the 個人情報保護法 asks for, linked from the footer, registration and 利用規約 第6条; 第7条 announces changes (民法548条の4)', async () => {
    const { context, page, errors } = await phone();
    await page.goto(`${shop.baseUrl}/users/registration`);
    await page.getByRole('main').getByRole('link', { name: 'プライバシーポリシー' }).waitFor();
    await page.getByRole('contentinfo').getByRole('link', { name: 'プライバシーポリシー' }).click();
    await page.waitForURL(`${shop.baseUrl}/privacy`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('プライバシーポリシー');
    const headings = await page.getByRole('heading', { level: 2 }).allTextContents();
    for (const needed of [
      '事業者の名称・住所・代表者',
      '利用目的',
      '第三者提供',
      '安全管理措置',
      '開示・訂正・利用停止',
      'Cookie',
      'お問い合わせ窓口',
    ]) {
      expect(
        headings.some((h) => h.includes(needed)),
        needed,
      ).toBe(true);
    }
    const text = (await page.getByRole('main').textContent()) ?? '';
    expect(text).toContain('研修管理システム');
    expect(text).toContain('Stripe');
    expect(text).toMatch(/制定日：.+改定日：/);
    await check(page, 'privacy policy');

    await page.goto(`${shop.baseUrl}/terms`);
    const article6 = page
      .getByRole('region', { name: '第6条（個人情報の取扱い）' })
      .or(page.locator('section', { hasText: '第6条' }));
    await article6.getByRole('link', { name: 'プライバシーポリシー' }).waitFor();
    const article7 = (await page.locator('section', { hasText: '第7条（規約の変更）' }).textContent()) ?? '';
    expect(article7).toContain('民法第548条の4');
    expect(article7).toContain('効力発生日');
    expect(article7).not.toContain('通知することなく');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('walks the public pages and the member pages without sideways scrolling, one h1 each, axe clean', async () => {
    const { context, page, errors } = await phone();
    for (const [path, name] of [
      ['/users/registration', 'registration'],
      ['/forgot-password', 'forgot password'],
      ['/terms', 'terms'],
      ['/privacy', 'privacy policy'],
      ['/specified_commercial_transactions_law', 'legal notice'],
      ['/ctoms', 'landing'],
    ] as const) {
      await page.goto(`${shop.baseUrl}${path}`);
      await check(page, name);
    }
    await signIn(page, MEMBER);
    await check(page, 'member page');

    await page.goto(`${shop.baseUrl}/licenses`);
    await page.locator('.license-card').first().waitFor();
    await check(page, 'catalogue');
    const first = page.locator('.license-card img').first();
    expect(await first.getAttribute('fetchpriority')).toBe('high');
    expect(await first.getAttribute('loading')).toBe('eager');
    for (const img of await page.locator('.license-card img').all()) {
      expect(await img.getAttribute('width')).toBeTruthy();
      expect(await img.getAttribute('height')).toBeTruthy();
    }

    await page.goto(`${shop.baseUrl}/licenses/${licenseId}`);
    await page.getByRole('link', { name: '購入手続きへ進む' }).waitFor();
    await check(page, 'licence detail');

    // A purchase by card, so the history has a row with every column.
    await page.getByRole('link', { name: '購入手続きへ進む' }).click();
    await page.waitForURL(`**/licenses/${licenseId}/procedure`);
    await page.locator('dl.summary').waitFor();
    await check(page, 'procedure');
    await page.getByRole('button', { name: 'お支払いへ進む' }).click();
    await page.waitForURL(`${shop.stripeUrl}/c/pay/**`);
    await page.getByRole('button', { name: 'カードで支払う' }).click();
    await page.waitForURL(`**/licenses/${licenseId}/complete?session_id=*`);
    await page.getByRole('heading', { name: 'ご購入ありがとうございます' }).waitFor({ timeout: 20_000 });
    await check(page, 'complete');
    // The hosted payment page is Stripe's (here its emulator's), not the shop's.
    errors.splice(0, errors.length, ...errors.filter((e) => !e.startsWith(shop.stripeUrl)));

    await page.goto(`${shop.baseUrl}/users/${memberId}`);
    await page.locator('table tbody tr').first().waitFor();
    await check(page, 'member page with history');
    await page.screenshot({ path: 'test-results/phone-history.png', fullPage: true });
    // On the phone each purchase is a card: every column (状況, 領収書 too) is on screen with its name.
    const cells = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('table tbody td')].map((td) => ({
        label: td.dataset.label,
        right: td.getBoundingClientRect().right,
        shown: getComputedStyle(td, '::before').content,
      })),
    );
    expect(cells.map((c) => c.label)).toEqual(
      expect.arrayContaining(['ご注文日時', 'ご注文番号', 'ライセンス', '金額', '状況', '領収書']),
    );
    for (const cell of cells) {
      expect(cell.right, `${cell.label} on screen`).toBeLessThanOrEqual(375);
      expect(cell.shown).toBe(`"${cell.label}"`);
    }

    for (const [path, name] of [
      [`/users/${memberId}/edit`, 'profile edit'],
      [`/users/${memberId}/password`, 'password'],
      [`/users/${memberId}/withdraw`, 'withdrawal'],
    ] as const) {
      await page.goto(`${shop.baseUrl}${path}`);
      await page.locator('form').waitFor();
      await check(page, name);
    }
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it('error pages have one h1 and a way on instead of a dead end', async () => {
    const { context, page, errors } = await phone();
    await page.goto(`${shop.baseUrl}/no-such-page`);
    await check(page, 'unknown page signed out');
    await page.getByRole('link', { name: 'ログイン画面へ' }).waitFor();

    await signIn(page, MEMBER);
    for (const [path, name] of [
      [`/users/${otherId}`, "another member's page"],
      ['/licenses/999999', 'unknown licence'],
      ['/licenses/999999/procedure', "unknown licence's procedure"],
      ['/admin', 'back office as a member'],
      ['/no-such-page', 'unknown page'],
    ] as const) {
      await page.goto(`${shop.baseUrl}${path}`);
      await page.getByRole('link', { name: 'ライセンス一覧へ', exact: true }).waitFor();
      await check(page, name);
      expect(await page.getByRole('link', { name: '会員情報・購入履歴へ' }).getAttribute('href'), name).toBe(
        `/users/${memberId}`,
      );
      expect(await page.getByRole('button', { name: '再読み込み' }).count(), `${name}: retrying cannot help`).toBe(0);
    }
    // The browser reports the refused API calls themselves; nothing else may be logged.
    expect(errors.filter((e) => !/Failed to load resource: the server responded with a status of 40[34]/.test(e))).toEqual([]);
    await context.close();
  }, 90_000);

  it('a failed submit moves focus to the first invalid field and announces one summary', async () => {
    const { context, page, errors } = await phone();
    await page.goto(`${shop.baseUrl}/users/registration`);
    await page.getByLabel('メールアドレス（確認）').fill('someone@example.jp');
    await page.getByRole('button', { name: '確認画面へ進む' }).click();
    await page.locator('[aria-invalid="true"]').first().waitFor();
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-invalid') === 'true');
    const state = await page.evaluate(() => {
      const invalid = [...document.querySelectorAll('[aria-invalid="true"]')];
      return {
        focused: document.activeElement === invalid[0],
        focusedName: document.activeElement?.getAttribute('name'),
        invalid: invalid.length,
        alerts: document.querySelectorAll('[role="alert"]').length,
        described: invalid.every((e) => {
          const id = e.getAttribute('aria-describedby');
          return id !== null && (document.getElementById(id)?.textContent ?? '') !== '';
        }),
      };
    });
    expect(state.focused).toBe(true);
    expect(state.focusedName).toBe('email');
    expect(state.invalid).toBeGreaterThan(1);
    expect(state.alerts).toBe(1);
    expect(state.described).toBe(true);
    await check(page, 'registration with errors');

    // A server-side refusal: the member's password form.
    await signIn(page, MEMBER);
    await page.goto(`${shop.baseUrl}/users/${memberId}/password`);
    await page.locator('form').waitFor();
    await page.locator('form button[type="submit"]').click();
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-invalid') === 'true');
    expect(await page.evaluate(() => document.querySelectorAll('[role="alert"]').length)).toBe(1);
    expect(await page.evaluate(() => document.activeElement === document.querySelector('[aria-invalid="true"]'))).toBe(true);
    expect(errors.filter((e) => !/Failed to load resource: the server responded with a status of 422/.test(e))).toEqual([]);
    await context.close();
  }, 90_000);

  it('the back office fits the phone too', async () => {
    const { context, page, errors } = await phone();
    await signIn(page, ADMIN);
    for (const [path, name] of [
      ['/admin', 'admin menu'],
      ['/admin/users', 'admin users'],
      [`/admin/users/${memberId}`, 'admin user detail'],
      ['/admin/licenses', 'admin licences'],
      [`/admin/licenses/${licenseId}`, 'admin licence detail'],
      ['/admin/licenses/create', 'admin licence form'],
      ['/admin/licenses/issue', 'licence issue'],
      ['/admin/sales/summary', 'sales summary'],
      ['/admin/payments', 'payments'],
      ['/admin/audit', 'audit log'],
      ['/admin/mails', 'failed mails'],
    ] as const) {
      await page.goto(`${shop.baseUrl}${path}`);
      await check(page, name);
    }
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);
});
