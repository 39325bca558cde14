import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aLicense, aMember, aSale } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';

/** Issue 35 items 3–5 in Chromium: お問い合わせ, ご利用ガイド, the legal pages, receipts before 退会. */

let app: Awaited<ReturnType<typeof startTestServer>>;
let smtp: TestSmtp;
let browser: Browser;

beforeAll(async () => {
  smtp = await startSmtp();
  app = await startTestServer({ smtpUrl: smtp.url, env: { CONTACT_TO: 'desk@example.jp' } });
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await smtp?.close();
});

async function signIn(page: Page, email: string, password: string) {
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill(email);
  await page.getByLabel('パスワード').fill(password);
  await page.getByRole('button', { name: 'ログインする' }).click();
  await page.waitForURL(/\/users\/[0-9a-f-]+$/);
}

/** The form was opened at least the minimum fill time ago (the signed time it was issued with). */
const formOldEnough = (page: Page) =>
  page.waitForFunction(
    () => {
      const entry = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).find((e) =>
        e.name.endsWith('/api/contact/form'),
      );
      return entry !== undefined && performance.now() - entry.responseEnd > 3_500;
    },
    undefined,
    { timeout: 10_000 },
  );

describe('お問い合わせ and ご利用ガイド in Chromium', () => {
  it('a guest reaches the form from the footer; too fast is said in Japanese; then both mails go out', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 812 } });
    await page.goto(`${app.baseUrl}/terms`);
    await page.getByRole('contentinfo').getByRole('link', { name: 'お問い合わせ' }).click();
    await page.waitForURL(`${app.baseUrl}/contact`);
    await page.getByLabel('お名前').fill('防災 太郎');
    await page.getByLabel('メールアドレス').fill('guest-asker@example.jp');
    await page.getByLabel('お問い合わせの種類').selectOption('メールが届かない');
    await page.getByLabel(/お問い合わせ内容/).fill('確認メールが届きません。');
    await page.getByRole('button', { name: '送信する' }).click();
    await page.getByText('送信までの時間が短すぎます', { exact: false }).first().waitFor();
    expect(await axeViolations(page)).toEqual([]);

    await formOldEnough(page);
    await page.getByRole('button', { name: '送信する' }).click();
    await page.getByText('お問い合わせを受け付けました。', { exact: false }).waitFor();
    const toShop = await smtp.waitFor((m) => smtp.to('desk@example.jp')(m) && (m.text ?? '').includes('guest-asker@example.jp'));
    expect(toShop.replyTo?.value[0]?.address).toBe('guest-asker@example.jp');
    await smtp.waitFor(smtp.to('guest-asker@example.jp'));
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('prefills the name and address of a signed-in member, and keeps their menu', async () => {
    const m = await aMember(app.runtime.deps.orm, { lastName: '救急', firstName: '一郎' });
    const page = await browser.newPage();
    await signIn(page, m.email, m.password);
    await page.goto(`${app.baseUrl}/contact`);
    await page.getByLabel('お名前').waitFor();
    expect(await page.getByLabel('お名前').inputValue()).toBe('救急 一郎');
    expect(await page.getByLabel('メールアドレス').inputValue()).toBe(m.email);
    await page.getByRole('navigation', { name: '会員メニュー' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('the guide explains registering, paying by card, konbini and transfer, documents and missing mail; axe-clean', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 812 } });
    await page.goto(`${app.baseUrl}/guide`);
    await page.getByRole('heading', { level: 1, name: 'ご利用ガイド' }).waitFor();
    const headings = await page.getByRole('heading', { level: 2 }).allTextContents();
    expect(headings).toEqual([
      '会員登録',
      'ライセンスの購入',
      'クレジットカードでのお支払い',
      'コンビニでのお支払い',
      '銀行振込でのお支払い',
      '領収書',
      '見積書・請求書',
      'メールが届かないとき',
    ]);
    const text = (await page.getByRole('main').textContent()) ?? '';
    expect(text).toContain('迷惑メールフォルダ');
    expect(text).toContain('払込票控え（受領証）');
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('the terms and the privacy policy read as the issue asks', async () => {
    const page = await browser.newPage();
    await page.goto(`${app.baseUrl}/terms`);
    await page.getByRole('heading', { level: 1, name: '利用規約' }).waitFor();
    const terms = (await page.getByRole('main').textContent()) ?? '';
    for (const article of [
      '第8条（禁止事項）',
      '第9条（反社会的勢力の排除）',
      '第10条（退会）',
      '第11条（免責）',
      '第12条（準拠法・合意管轄）',
    ]) {
      expect(terms).toContain(article);
    }
    expect(terms).toContain('施行日');
    await page.goto(`${app.baseUrl}/privacy`);
    await page.getByRole('heading', { level: 1, name: 'プライバシーポリシー' }).waitFor();
    const privacy = (await page.getByRole('main').textContent()) ?? '';
    expect(privacy).toContain('手数料：いただきません');
    expect(privacy).toContain('代理人による請求');
    expect(privacy).toContain('外的環境の把握');
    const regulator = page.getByRole('link', { name: /個人情報保護委員会/ });
    expect(await regulator.getAttribute('href')).toMatch(/^https:\/\/www\.ppc\.go\.jp\//);
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('the 退会 page lists the member’s receipts with their download before confirming', async () => {
    const orm = app.runtime.deps.orm;
    const m = await aMember(orm, { lastName: '退会', firstName: '予定' });
    const kept = await aLicense(orm, { name: 'ACLS ライセンス' });
    await aSale(orm, kept, { userId: m.id, email: m.email });
    await aSale(orm, await aLicense(orm, { name: '返金済みライセンス' }), { userId: m.id, email: m.email, refunded: true });
    const page = await browser.newPage();
    await signIn(page, m.email, m.password);
    await page.goto(`${app.baseUrl}/users/${m.id}/withdraw`);
    await page.getByRole('heading', { level: 2, name: '退会の前に領収書をダウンロードしてください' }).waitFor();
    const receipts = page.locator('section.subsection');
    await receipts.getByRole('button', { name: /ACLS ライセンス/ }).waitFor();
    expect(await receipts.getByRole('button', { name: /返金済みライセンス/ }).count()).toBe(0);
    expect(await receipts.getByRole('link', { name: 'お問い合わせ' }).getAttribute('href')).toContain('/contact?category=');
    // The receipts come before the password that confirms.
    expect(
      await page.evaluate(() => {
        const list = document.querySelector('.receipt-list');
        const password = document.querySelector('input[type=password]');
        return Boolean(list && password && list.compareDocumentPosition(password) & Node.DOCUMENT_POSITION_FOLLOWING);
      }),
    ).toBe(true);
    await receipts.getByRole('button', { name: /領収書（PDF）/ }).click();
    await page.getByRole('dialog', { name: '領収書の発行' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });
});
