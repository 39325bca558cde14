import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aLicense, aMember, aSale } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';

/** Issue 35 item 6: the member side's last defects, as a member meets them in Chromium. */

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
const LONG_NAME = '外傷初期対応トレーニングライセンス';

beforeAll(async () => {
  app = await startTestServer();
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function signedIn(viewport = { width: 1280, height: 900 }) {
  const m = await aMember(app.runtime.deps.orm, { lastName: '看護', firstName: '花子' });
  const page = await browser.newPage({ viewport });
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill(m.email);
  await page.getByLabel('パスワード').fill(m.password);
  await page.getByRole('button', { name: 'ログインする' }).click();
  await page.waitForURL(/\/users\/[0-9a-f-]+$/);
  return { page, member: m };
}

const menu = (page: Page) => page.getByRole('navigation', { name: '会員メニュー' });

describe('member defects (issue 35 item 6) in Chromium', () => {
  it('opening a licence from the catalogue focuses its h1 and announces its name', async () => {
    const orm = app.runtime.deps.orm;
    await aLicense(orm, { name: LONG_NAME, price: 22_000 });
    const { page } = await signedIn();
    await menu(page).getByRole('link', { name: 'ライセンス一覧' }).click();
    await page
      .getByRole('link', { name: new RegExp(LONG_NAME) })
      .first()
      .click();
    await page.waitForFunction(
      (name) => document.activeElement?.tagName === 'H1' && document.activeElement.textContent === name,
      LONG_NAME,
    );
    await page.waitForFunction((name) => document.querySelector('[data-route-announcer]')?.textContent === name, LONG_NAME);
    expect(await page.title()).toBe(`${LONG_NAME}｜ライセンスストア`);
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('at 375 px the long licence name wraps between its words, never inside ライセンス', async () => {
    const { page } = await signedIn({ width: 375, height: 812 });
    const id = await aLicense(app.runtime.deps.orm, { name: LONG_NAME });
    for (const [url, selector] of [
      [`${app.baseUrl}/licenses/${id}`, '.license-name'],
      [`${app.baseUrl}/licenses`, '.card-name'],
    ] as const) {
      await page.goto(url);
      const name = page.locator(selector).filter({ hasText: LONG_NAME }).first();
      await name.waitFor();
      // The text of each drawn line: a line that starts inside ライセンス (or トレーニング) is a break inside a word.
      const lines = await name.evaluate((element) => {
        const range = document.createRange();
        const text = element.textContent ?? '';
        const tops = new Map<number, string>();
        let offset = 0;
        for (const node of [...element.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE)) {
          for (let i = 0; i < (node.textContent?.length ?? 0); i++) {
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            const top = Math.round(range.getBoundingClientRect().top);
            tops.set(top, (tops.get(top) ?? '') + (text[offset + i] ?? ''));
          }
          offset += node.textContent?.length ?? 0;
        }
        return [...tops.values()];
      });
      expect(lines.join('')).toBe(LONG_NAME);
      for (const line of lines)
        expect(
          ['外傷初期対応', 'トレーニング', 'ライセンス'].some((w) => line.startsWith(w)),
          line,
        ).toBe(true);
      // …and it fits the screen.
      expect(await name.evaluate((element) => element.getBoundingClientRect().right <= window.innerWidth)).toBe(true);
    }
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('the receipt dialog opened from the purchase mail focuses its content, not 「閉じる」', async () => {
    const { page, member } = await signedIn();
    const saleId = await aSale(app.runtime.deps.orm, await aLicense(app.runtime.deps.orm), {
      userId: member.id,
      email: member.email,
    });
    await page.goto(`${app.baseUrl}/users/${member.id}?receipt=${saleId}`);
    const dialog = page.getByRole('dialog', { name: '領収書の発行' });
    await dialog.waitFor();
    await page.waitForFunction(() => document.activeElement?.closest('dialog') !== null);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('領収書の発行');
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('the 404 and unknown-session pages offer ライセンス一覧へ once, and お問い合わせ', async () => {
    const { page } = await signedIn();
    for (const url of [`${app.baseUrl}/no-such-page`, `${app.baseUrl}/licenses/1/complete?session_id=cs_unknown`]) {
      await page.goto(url);
      await page.locator('main .way-on').waitFor();
      expect(await page.locator('main').getByRole('link', { name: 'ライセンス一覧へ' }).count(), url).toBe(1);
      expect(await page.locator('main').getByRole('link', { name: 'お問い合わせ' }).count(), url).toBe(1);
      expect(await axeViolations(page), url).toEqual([]);
    }
    await page.close();
  });

  it('/privacy, /terms and the 特商法 page keep the member menu when signed in, and show none otherwise', async () => {
    const { page } = await signedIn();
    const paths = ['/privacy', '/terms', '/specified_commercial_transactions_law'];
    for (const path of paths) {
      await page.goto(`${app.baseUrl}${path}`);
      await page.locator('main h1').waitFor();
      await menu(page).waitFor();
      expect(await menu(page).getByRole('link', { name: 'ライセンス一覧' }).count(), path).toBe(1);
    }
    expect(await axeViolations(page)).toEqual([]);
    const guest = await browser.newPage();
    for (const path of paths) {
      await guest.goto(`${app.baseUrl}${path}`);
      await guest.locator('main h1').waitFor();
      expect(await menu(guest).count(), path).toBe(0);
    }
    await guest.close();
    await page.close();
  });
});
