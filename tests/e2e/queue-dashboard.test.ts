import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventNames } from '../../src/events/contracts.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aMember } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';
import { enrolAdmin, passTwoFactor } from '../support/two-factor-browser.ts';
import { eventually } from '../support/wait.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
const ADMIN = { email: 'queues-admin@example.jp', password: 'queues-admin-pass' };
const MEMBER = { email: 'queues-member@example.jp', password: 'queues-member-pass' };

/** Every control that would delete, empty, pause, retry, add or change jobs (bull-board's Japanese labels). */
const WRITES = [
  'すべて削除',
  '空にする',
  '完全削除',
  'すべて一時停止',
  '一時停止',
  'ジョブを追加',
  'すべて再試行',
  'すべて昇格',
  '再試行',
  '削除',
  '昇格',
  'データ更新',
  '複製',
  '同時実行数を設定',
  'レート制限を設定',
];

beforeAll(async () => {
  app = await startTestServer();
  await createOrPromoteAdmin(app.runtime.deps.orm, ADMIN);
  await enrolAdmin(app.app, ADMIN);
  await aMember(app.runtime.deps.orm, { ...MEMBER, lastName: '会員', firstName: '花子', emailVerified: true });
  // A job the mail worker cannot run fails for good: the dashboard then has a failed job to show.
  const mail = app.runtime.deps.queues.mail;
  await mail.add('broken', { not: 'an event' }, { jobId: 'broken-job', attempts: 1 });
  await eventually(async () => (await mail.getJobCounts('failed')).failed === 1, 15_000, 'the broken job to fail');
  // A job scheduled for later (「予約」) and one waiting in a paused queue: every state has a job to show.
  await app.runtime.deps.queues.exports.add('ExportRequested', { later: true }, { jobId: 'later-job', delay: 3_600_000 });
  await app.runtime.deps.queues.payments.pause();
  await app.runtime.deps.queues.payments.add('CheckoutPaid', { waiting: true }, { jobId: 'waiting-job' });
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await app?.runtime.deps.queues.payments.resume();
  await browser?.close();
  await app?.stop();
});

async function signIn(context: BrowserContext, user: { email: string; password: string }): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill(user.email);
  await page.getByLabel('パスワード').fill(user.password);
  const signingInAs = await page.getByLabel('メールアドレス').inputValue();
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, signingInAs);
  await page.waitForURL((url) => url.pathname !== '/login');
  return page;
}

/** Console errors, CSP violations and requests to other origins, from now on. */
async function watchForProblems(page: Page): Promise<() => Promise<string[]>> {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (!['data:', 'blob:'].includes(url.protocol) && url.origin !== app.baseUrl) problems.push(`request: ${r.url()}`);
  });
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.effectiveDirective} ${e.blockedURI}`));
  });
  return async () => {
    const csp = await page.evaluate(() => (window as unknown as { cspViolations?: string[] }).cspViolations ?? []);
    return [...problems, ...csp.map((v) => `CSP: ${v}`)];
  };
}

/** Buttons and menu items named like one of WRITES, anywhere on the page. */
function namedWrites(page: Page) {
  const name = new RegExp(`^(${WRITES.join('|')})$`);
  return Promise.all([page.getByRole('button', { name }).count(), page.getByRole('menuitem', { name }).count()]).then(
    ([buttons, items]) => buttons + items,
  );
}

/**
 * The main area's buttons, but for the copy buttons inside a job's detail tabs. bull-board's job and
 * queue actions are mostly unnamed icons, so they are counted, not looked up by name.
 */
function buttonsOutsideJobDetails(page: Page): Promise<string[]> {
  return page
    .getByRole('main')
    .getByRole('button')
    .evaluateAll((buttons) =>
      buttons
        .filter((b) => !b.closest('[role="tabpanel"]'))
        .map((b) => b.getAttribute('aria-label') ?? (b.textContent?.trim() || b.outerHTML.slice(0, 80))),
    );
}

describe('the queue dashboard in Chromium', () => {
  it.each(['light', 'dark'] as const)(
    'opens for an administrator (%s theme) in Japanese, with no CSP or console error, nothing from elsewhere, no way to destroy jobs, and readable',
    async (colorScheme) => {
      const context = await browser.newContext({ colorScheme });
      const page = await signIn(context, ADMIN);
      await page.waitForURL('**/admin');
      const problems = await watchForProblems(page);

      const res = await page.goto(`${app.baseUrl}/admin/queues`);
      expect(res?.status()).toBe(200);
      const main = page.getByRole('main');
      for (const name of ['メール', '決済', 'CSV出力']) await main.getByRole('link', { name, exact: true }).waitFor();
      await page.getByText('失敗', { exact: true }).first().waitFor();
      expect(await page.locator('html').getAttribute('lang')).toBe('ja');
      expect(await page.title()).toBe('ジョブキュー｜ライセンスストア');
      expect(await namedWrites(page)).toBe(0);
      // No queue card has a menu; the status bar's sorts the queues and (all read-only) pauses none.
      const menus = main.locator('button[aria-haspopup="menu"]');
      expect(await menus.count()).toBe(1);
      await menus.click();
      expect(await page.getByRole('menuitem').allTextContents()).toEqual(['並び順']);
      await page.keyboard.press('Escape');
      expect(await axeViolations(page, { defaults: true })).toEqual([]);
      if (colorScheme === 'light') await page.screenshot({ path: 'test-results/queue-dashboard.png', fullPage: true });

      // A failed job: shown with its error, and nothing to retry or delete it with.
      await page.goto(`${app.baseUrl}/admin/queues/queue/mail?status=failed`);
      await page.getByText('bad event', { exact: false }).first().waitFor();
      expect(await namedWrites(page)).toBe(0);
      expect(await buttonsOutsideJobDetails(page)).toEqual([]);
      expect(await axeViolations(page, { defaults: true })).toEqual([]);
      if (colorScheme === 'light') await page.screenshot({ path: 'test-results/queue-dashboard-failed.png', fullPage: true });

      // The payments queue's nightly job scheduler: its template can be read, not edited, run or removed.
      await page.goto(`${app.baseUrl}/admin/queues/job-schedulers`);
      await page.getByRole('table').getByRole('link', { name: '決済' }).first().waitFor();
      await page.getByRole('table').getByText('決済の照合').waitFor();
      expect(new Set(await buttonsOutsideJobDetails(page))).toEqual(new Set(['ジョブテンプレート']));
      expect(await axeViolations(page, { defaults: true })).toEqual([]);

      expect(await problems()).toEqual([]);
      await context.close();
    },
    60_000,
  );

  it('every state axe-clean at 1440 and 375 px: queue list, each status of a queue, a job, settings, the menu', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await signIn(context, ADMIN);
    const problems = await watchForProblems(page);
    const states: [string, string][] = [
      ['/admin/queues', 'CSV出力'],
      ['/admin/queues/queue/mail?status=completed', '新しい端末からのログイン'],
      ['/admin/queues/queue/mail?status=failed', '不明なジョブ（broken）'],
      ['/admin/queues/queue/exports?status=delayed', '研修管理システム用CSVの作成'],
      ['/admin/queues/queue/payments?status=waiting', '決済の完了'],
      ['/admin/queues/queue/exports?status=active', 'この状態のジョブはありません'],
      ['/admin/queues/queue/mail/broken-job', '不明なジョブ（broken）'],
      ['/admin/queues/job-schedulers', '決済の照合'],
    ];
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 900 });
      for (const [path, shown] of states) {
        await page.goto(`${app.baseUrl}${path}`);
        await page.getByRole('main').getByText(shown).first().waitFor();
        expect(await axeViolations(page, { defaults: true }), `${path} at ${width} px`).toEqual([]);
        // In Japanese: 「予約」 for a job scheduled for later, and no code name outside a job's raw data.
        const text = await page.evaluate(() => {
          const copy = document.body.cloneNode(true) as HTMLElement;
          for (const raw of copy.querySelectorAll('[role="tabpanel"]')) raw.remove();
          return copy.innerText;
        });
        if (path === '/admin/queues' || path.includes('?status=')) expect(text).toContain('予約');
        expect(text).not.toMatch(/遅延|failedジョブ/);
        const codeNames = ['mail', 'payments', 'exports', 'announcements', ...eventNames];
        expect(
          text.split(/\s+/).filter((word) => codeNames.includes(word)),
          `${path}`,
        ).toEqual([]);
      }
    }
    // The header's dialogs and menus, open.
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${app.baseUrl}/admin/queues`);
    await page.getByRole('button', { name: '表示の設定' }).click();
    await page.getByRole('dialog').waitFor();
    expect(await axeViolations(page, { defaults: true })).toEqual([]);
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'ほかの管理画面（管理メニュー・運用状況）' }).click();
    await page.getByRole('menuitem', { name: '運用状況（滞りの件数）' }).waitFor();
    expect(await axeViolations(page, { defaults: true })).toEqual([]);
    await page.keyboard.press('Escape');
    expect(await problems()).toEqual([]);
    await context.close();
  }, 120_000);

  it('links back to the admin menu with a labelled link, reached by keyboard', async () => {
    const context = await browser.newContext();
    const page = await signIn(context, ADMIN);
    await page.goto(`${app.baseUrl}/admin/queues`);
    await page.getByRole('main').getByRole('link', { name: '決済', exact: true }).waitFor();
    const back = page.getByRole('banner').getByRole('link', { name: '管理メニューへ戻る', exact: true });
    await back.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${app.baseUrl}/admin`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('管理メニュー');
    await context.close();
  });

  it('links to 運用状況, which shows the metrics’ figures (failed mail, outbox, payments inbox and flagged payments) at 375 px, axe-clean', async () => {
    const context = await browser.newContext();
    const page = await signIn(context, ADMIN);
    const problems = await watchForProblems(page);
    await page.goto(`${app.baseUrl}/admin/queues`);
    await page.getByRole('main').getByRole('link', { name: '決済', exact: true }).waitFor();
    await page.getByRole('button', { name: 'ほかの管理画面（管理メニュー・運用状況）' }).click();
    await page.getByRole('menuitem', { name: '運用状況（滞りの件数）' }).click();
    await page.waitForURL(`${app.baseUrl}/admin/operations`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('運用状況');
    await page.setViewportSize({ width: 375, height: 812 });
    const mail = page.getByRole('region', { name: 'メール' });
    await mail.getByText('送信に失敗したメール').waitFor();
    const figures =
      (await (
        await app.runtime.deps.orm.em
          .fork()
          .execute<{ n: number }[]>("select count(*)::int as n from mail_deliveries where status = 'failed' and permanent")
      )[0]?.n) ?? 0;
    expect(
      await mail
        .getByRole('link', { name: `${figures}件` })
        .first()
        .getAttribute('href'),
    ).toBe('/admin/mails');
    await page.getByRole('region', { name: '送り出し待ちのイベント' }).waitFor();
    const payments = page.getByRole('region', { name: '決済の受信箱と照合' });
    await payments.getByText('未処理の通知').waitFor();
    await payments.getByText('照合で見つかった未確認の差異').waitFor();
    // The broken job above failed in the mail queue: the queue figures say so.
    await page.getByRole('region', { name: 'ジョブキュー' }).getByText('失敗 1件').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await axeViolations(page, { defaults: true })).toEqual([]);
    expect(await problems()).toEqual([]);
    await context.close();
  });

  it("shows a member the app's own 403 page", async () => {
    const context = await browser.newContext();
    const page = await signIn(context, MEMBER);
    const res = await page.goto(`${app.baseUrl}/admin/queues`);
    expect(res?.status()).toBe(403);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('アクセスできません');
    expect(await page.getByRole('alert').textContent()).toBe('このページを表示する権限がありません。');
    expect(await page.locator('html').getAttribute('lang')).toBe('ja');
    // The SPA's own error page: its header, and its ways on from there.
    expect(await page.getByRole('link', { name: 'ライセンスストア' }).count()).toBe(1);
    expect(await page.getByRole('navigation', { name: 'ほかのページへ' }).getByRole('link').count()).toBeGreaterThan(0);
    expect(await axeViolations(page, { defaults: true })).toEqual([]);
    await page.screenshot({ path: 'test-results/queue-dashboard-member.png', fullPage: true });
    await context.close();
  });

  it('sends a signed-out visitor to the sign-in page', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${app.baseUrl}/admin/queues`);
    await page.waitForURL(`${app.baseUrl}/login`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('ログイン');
    await context.close();
  });
});
