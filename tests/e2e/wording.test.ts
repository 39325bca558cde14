import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aMember } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';

/** Issue 21 items 6 and 7 as a member meets them in Chromium: names, links, focus, line breaks, mails. */

let app: Awaited<ReturnType<typeof startTestServer>>;
let smtp: TestSmtp;
let browser: Browser;
let seq = 0;
const PASSWORD = 'wording-pass-123';

async function member(lastName = '言葉') {
  const email = `wording-${++seq}-${Date.now()}@example.jp`;
  const user = await aMember(app.runtime.deps.orm, {
    email,
    password: PASSWORD,
    lastName,
    firstName: '花子',
    emailVerified: true,
    affiliation: 5,
    affiliationName: '〇〇病院',
  });
  return { id: user.id, email };
}

beforeAll(async () => {
  smtp = await startSmtp();
  app = await startTestServer({ smtpUrl: smtp.url });
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await smtp?.close();
});

async function signIn(page: Page, email: string, password = PASSWORD) {
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill(email);
  await page.getByLabel('パスワード').fill(password);
  await page.getByRole('button', { name: 'ログインする' }).click();
  await page.waitForURL(/\/users\/[0-9a-f-]+$/);
}

const focusedHeading = (page: Page) =>
  page.evaluate(() => (document.activeElement?.tagName === 'H1' ? document.activeElement.textContent : null));

describe('small defects (issue 21 item 7) in Chromium', () => {
  it('shows the new name in the header right after the member edits it', async () => {
    const { id, email } = await member('旧姓');
    const page = await browser.newPage();
    await signIn(page, email);
    const greeting = page.locator('.site-header .signed-in');
    expect(await greeting.textContent()).toBe('旧姓 花子 様');
    await page.getByRole('link', { name: '会員情報を変更する' }).click();
    await page.getByLabel('姓', { exact: true }).fill('新姓');
    // フリガナ is asked for by the profile form (a member registered before it has none yet).
    await page.getByLabel('セイ', { exact: true }).fill('シンセイ');
    await page.getByLabel('メイ', { exact: true }).fill('ハナコ');
    await page.getByRole('button', { name: '確認画面へ進む' }).click();
    await page.getByRole('button', { name: '保存する' }).click();
    await page.waitForURL(`${app.baseUrl}/users/${id}`);
    await page.waitForFunction(() => document.querySelector('.site-header .signed-in')?.textContent === '新姓 花子 様');
    // …and it stays so on a reload (the display cache was replaced, not patched over).
    await page.reload();
    expect(await greeting.textContent()).toBe('新姓 花子 様');
    await page.close();
  });

  it('moves focus to the new page’s h1 and announces its title on every route change', async () => {
    const { email } = await member();
    const page = await browser.newPage();
    await signIn(page, email);
    const announcer = page.locator('[data-route-announcer]');
    expect(await announcer.getAttribute('aria-live')).toBe('polite');

    await page.getByRole('navigation', { name: '会員メニュー' }).getByRole('link', { name: 'ライセンス一覧' }).click();
    await page.waitForURL(`${app.baseUrl}/licenses`);
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
    expect(await focusedHeading(page)).toBe('ライセンス一覧');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('tabindex'))).toBe('-1');
    await page.waitForFunction(() => document.querySelector('[data-route-announcer]')?.textContent === 'ライセンス一覧');
    expect(await page.title()).toBe('ライセンス一覧｜ライセンスストア');

    await page.getByRole('navigation', { name: '会員メニュー' }).getByRole('link', { name: '特定商取引法に基づく表記' }).click();
    await page.waitForFunction(
      () => document.querySelector('[data-route-announcer]')?.textContent === '特定商取引法に基づく表記',
    );
    expect(await focusedHeading(page)).toBe('特定商取引法に基づく表記');
    expect(await page.title()).toBe('特定商取引法に基づく表記｜ライセンスストア');
    // Tab goes on from the heading, not back to the top of the document (the header, the menu).
    await page.keyboard.press('Tab');
    expect(
      await page.evaluate(() => {
        const heading = document.querySelector('main h1');
        const active = document.activeElement;
        return Boolean(heading && active && heading.compareDocumentPosition(active) & Node.DOCUMENT_POSITION_FOLLOWING);
      }),
    ).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('says a used reset link is used, offers a new one, and the mails read right as plain text', async () => {
    const { email } = await member('再設');
    const page = await browser.newPage();
    await page.goto(`${app.baseUrl}/forgot-password`);
    await page.getByLabel('メールアドレス').fill(email);
    await page.getByRole('button', { name: /送信/ }).click();
    const resetMail = await smtp.waitFor(
      (m) => smtp.to(email)(m) && m.subject === '【ライセンスストア】パスワード再設定のご案内',
    );
    // The plain-text part has no button: it points at the URL below its text; the HTML part keeps its button.
    expect(resetMail.text).toContain('以下の URL から新しいパスワードを設定してください。');
    expect(resetMail.text).not.toContain('ボタン');
    expect(resetMail.html || '').toContain('下のボタンから新しいパスワードを設定してください。');
    const link = /https?:\/\/\S+\/reset-password\/\S+/.exec(resetMail.text ?? '')?.[0];
    expect(link).toBeDefined();

    await page.goto(link as string);
    await page.getByLabel('パスワード（8〜72文字）').fill('brand-new-pass-456');
    await page.getByLabel('パスワード（確認）').fill('brand-new-pass-456');
    await page.getByRole('button', { name: 'パスワードを再設定する' }).click();
    await page.getByText('パスワードを再設定しました。').waitFor();

    // The notice of the change: a time in Japan time, said so, and the URL named as such.
    const notice = await smtp.waitFor((m) => smtp.to(email)(m) && m.subject === '【ライセンスストア】パスワード変更のお知らせ');
    expect(notice.text).toMatch(/変更日時: \d{4}年\d{1,2}月\d{1,2}日 \d{2}:\d{2}（日本時間）/);
    expect(notice.text).toContain('以下の URL からすぐにパスワードを再設定し');
    expect(notice.text).not.toContain('下のボタン');

    // The same link again: it says it is used before anything is typed, and leads to a new one.
    await page.goto(link as string);
    const alert = page.getByRole('alert');
    await alert.getByText('このリンクは使用済みです。').waitFor();
    expect(await page.getByLabel('パスワード（8〜72文字）').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: '再設定メールをもう一度送る' }).click();
    await page.waitForURL(/\/forgot-password\?email=/);
    expect(await page.getByLabel('メールアドレス').inputValue()).toBe(email);
    await page.close();
  });

  it('says an expired reset link has expired', async () => {
    const { id, email } = await member('期限');
    const page = await browser.newPage();
    await page.goto(`${app.baseUrl}/forgot-password`);
    await page.getByLabel('メールアドレス').fill(email);
    await page.getByRole('button', { name: /送信/ }).click();
    const mail = await smtp.waitFor((m) => smtp.to(email)(m) && m.subject === '【ライセンスストア】パスワード再設定のご案内');
    const link = /https?:\/\/\S+\/reset-password\/\S+/.exec(mail.text ?? '')?.[0] as string;
    await app.runtime.deps.orm.em
      .fork()
      .execute(
        "update account_tokens set expires_at = now() - interval '1 second' where purpose = 'reset-password' and user_id = ?",
        [id],
      );
    await page.goto(link);
    await page.getByRole('alert').getByText('このリンクの有効期限が切れています。').waitFor();
    await page.getByRole('link', { name: '再設定メールをもう一度送る' }).waitFor();
    await page.close();
  });
});

describe('wording (issue 21 item 6) in Chromium', () => {
  it('says the shop is temporarily unavailable on an outage, and that the member is offline only when they are', async () => {
    const { email } = await member('障害');
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, email);
    // A gateway in front of the shop answers 503 with its own HTML page.
    const catalogue = (url: URL) => url.pathname === '/api/licenses';
    await page.route(catalogue, (route) =>
      route.fulfill({ status: 503, contentType: 'text/html', body: '<html><body>Service Unavailable</body></html>' }),
    );
    await page.goto(`${app.baseUrl}/licenses`);
    const alert = page.getByRole('alert');
    await alert.getByText('ただいまサービスを利用できません。しばらくしてからもう一度お試しください。').waitFor();
    expect(await alert.textContent()).not.toMatch(/ネットワーク|接続/);

    // Really offline: the browser knows, and the page says so.
    await page.unroute(catalogue);
    await context.setOffline(true);
    await page.getByRole('button', { name: '再読み込み' }).click();
    await alert.getByText('インターネットに接続されていません。', { exact: false }).waitFor();
    // Back online, the list loads again by itself (SWR revalidates on reconnect).
    await context.setOffline(false);
    await alert.waitFor({ state: 'detached' });
    await page.getByRole('heading', { level: 1, name: 'ライセンス一覧' }).waitFor();
    await context.close();
  });

  it('lists the fields to fix at the top of a failed form, never 「不正な値」', async () => {
    const page = await browser.newPage();
    await page.goto(`${app.baseUrl}/users/registration`);
    await page.getByLabel('メールアドレス', { exact: true }).fill('not-an-address');
    await page.getByRole('button', { name: '確認画面へ進む' }).click();
    const summary = page.locator('[data-form-alert]');
    await summary.waitFor();
    const text = (await summary.textContent()) ?? '';
    expect(text).toMatch(/^入力内容を確認してください。（メールアドレス、.+）/);
    expect(text).not.toContain('不正な値');
    expect(text).not.toContain('エラー:');
    await page.close();
  });
});

describe('line breaks at 375 px (issue 21 item 7)', () => {
  /**
   * Words of the pages that must never be split over two lines. (Chromium's phrase model does split
   * some compounds of kana and kanji, e.g. お問い|合わせ: those are left out, not asserted.)
   */
  const WORDS = ['プライバシーポリシー', '個人情報', 'ライセンス', 'パスワード', 'メールアドレス', 'クッキー', 'サービス'];

  /** Every occurrence of `words` in the main text whose characters lie on more than one line. */
  const splitWords = (page: Page) =>
    page.evaluate((words) => {
      const found: string[] = [];
      const main = document.querySelector('main');
      if (!main) return ['no main'];
      const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
      const range = document.createRange();
      let checked = 0;
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = (node as Text).data;
        for (const word of words) {
          for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
            range.setStart(node, at);
            range.setEnd(node, at + word.length);
            const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
            checked++;
            if (lines.size > 1) found.push(`${word}: …${text.slice(Math.max(0, at - 8), at + word.length + 8)}…`);
          }
        }
      }
      return checked ? found : ['no words checked'];
    }, WORDS);

  it('wraps Japanese between phrases, never inside a word, on the privacy policy and the terms', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
    for (const path of ['/privacy', '/terms']) {
      await page.goto(`${app.baseUrl}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      expect(await page.evaluate(() => getComputedStyle(document.body).wordBreak)).toBe('auto-phrase');
      expect(await splitWords(page), path).toEqual([]);
    }
    // The measure can see a split: with the browser's default breaking, the same page splits words.
    await page.addStyleTag({ content: 'body { word-break: normal !important; }' });
    expect((await splitWords(page)).length).toBeGreaterThan(0);
    await page.close();
  });

  it('lets only long Latin strings break anywhere', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
    await page.goto(`${app.baseUrl}/privacy`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    const styles = await page.evaluate(() => {
      const probe = document.createElement('span');
      probe.className = 'latin-break';
      document.body.append(probe);
      const latin = getComputedStyle(probe).overflowWrap;
      const paragraph = document.querySelector('main p');
      return { latin, text: paragraph ? getComputedStyle(paragraph).overflowWrap : 'none' };
    });
    expect(styles).toEqual({ latin: 'anywhere', text: 'break-word' });
    await page.close();
  });
});
