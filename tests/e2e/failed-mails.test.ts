import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { db as kyselyOf, millisecondsAgo, now } from '../../src/db/kysely.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { confirmInDialog } from '../support/confirm-dialog.ts';
import { aMember } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { enrolAdmin, passTwoFactor } from '../support/two-factor-browser.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
let smtp: TestSmtp;

beforeAll(async () => {
  smtp = await startSmtp();
  app = await startTestServer({ smtpUrl: smtp.url });
  await createOrPromoteAdmin(app.runtime.deps.orm, { email: 'mail-admin@example.jp', password: 'mail-admin-pass' });
  await enrolAdmin(app.app, { email: 'mail-admin@example.jp', password: 'mail-admin-pass' });
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await smtp?.close();
});

const HOUR = 3_600_000;
/** A receipt mail to `recipient`, keyed as the mail module keys it. */
const receiptMail = (key: string, recipient: string) => ({
  id: randomUUID(),
  key: `${key}:receipt`,
  template: 'receipt',
  user_id: null,
  recipient,
  subject: 'ご購入ありがとうございます',
});
const accessible = async (page: Page, name: string) => expect(await axeViolations(page), name).toEqual([]);
const noSidewaysScroll = async (page: Page) =>
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

async function signIn(page: Page) {
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill('mail-admin@example.jp');
  await page.getByLabel('パスワード').fill('mail-admin-pass');
  const signingInAs = await page.getByLabel('メールアドレス').inputValue();
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, signingInAs);
  await page.waitForURL('**/admin');
}

it('送信に失敗したメール at 375 px: empty, loading and error states; pages; a refused mail resent from the list', async () => {
  const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
  await signIn(page);

  // From the admin menu; nothing has failed yet.
  await page.locator('ul.menu').getByRole('link', { name: '送信に失敗したメール' }).click();
  await page.waitForURL('**/admin/mails');
  expect(await page.title()).toBe('送信に失敗したメール｜ライセンスストア');
  await page.getByRole('heading', { name: '送信に失敗したメール' }).waitFor();
  await page.getByText('送信に失敗したメールはありません。').waitFor();
  await accessible(page, 'empty list');
  await noSidewaysScroll(page);

  // Loading, then an error with a retry.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const list = (url: URL) => url.pathname === '/api/mails';
  await page.route(list, async (route) => {
    await held;
    await route.fulfill({ status: 500, contentType: 'application/json', body: '{"message":"サーバーでエラーが発生しました。"}' });
  });
  await page.reload();
  await page.getByText('送信に失敗したメールを読み込んでいます…').waitFor();
  release();
  await page.getByRole('alert').getByText('サーバーでエラーが発生しました。').waitFor();
  await page.getByRole('button', { name: '再読み込み' }).waitFor();
  await accessible(page, 'error state');
  await page.unroute(list);

  // A member whose mailbox the server refuses (550): the verification mail fails for good.
  const email = 'refused-mailbox@example.jp';
  smtp.refuse(email);
  await aMember(app.runtime.deps.orm, {
    email,
    password: 'member-pass-123',
    lastName: '拒否',
    firstName: '太郎',
    emailVerified: false,
  });
  await expect
    .poll(
      async () =>
        (
          await app.runtime.deps.orm.em
            .fork()
            .execute<{ n: number }[]>(
              "select count(*)::int as n from mail_deliveries where recipient = ? and status = 'failed'",
              [email],
            )
        )[0]?.n,
      { timeout: 15_000 },
    )
    .toBe(1);
  // And 21 older failures (a receipt whose mailbox is full, retried automatically), for a second page.
  const older = Array.from({ length: 21 }, (_, i) => ({
    ...receiptMail(`older-${i + 1}`, `full-${i + 1}@example.jp`),
    status: 'failed',
    attempts: 3,
    error: '452 4.2.2 mailbox full',
    failed_at: millisecondsAgo(HOUR),
    created_at: millisecondsAgo((i + 1) * HOUR),
  }));
  await kyselyOf(app.runtime.deps.orm.em.fork()).insertInto('mail_deliveries').values(older).execute();

  await page.getByRole('button', { name: '再読み込み' }).click();
  const rows = page.locator('tbody tr');
  await rows.first().waitFor();
  expect(await rows.count()).toBe(20);
  const first = await rows.first().textContent();
  expect(first).toContain('メールアドレスの確認');
  expect(first).toContain(email);
  // One word for it (送信失敗, as the page's title), the server's answer summed up in Japanese, the raw
  // answer kept behind a disclosure.
  expect(first).toContain('送信失敗（宛先が拒否）');
  expect(first).toContain('メールサーバーが、この宛先への配送を断りました。');
  expect(first).toMatch(/550 5\.1\.1 .*mailbox unavailable/);
  expect(
    await rows
      .first()
      .getByText(/mailbox unavailable/)
      .isVisible(),
  ).toBe(false);
  await rows.first().getByText('メールサーバーの応答（原文）').click();
  expect(
    await rows
      .first()
      .getByText(/mailbox unavailable/)
      .isVisible(),
  ).toBe(true);
  expect(await rows.nth(1).textContent()).toContain('送信失敗（一時的・自動で再送）');
  await page.getByText('1 / 2 ページ（全22件）').waitFor();
  await accessible(page, 'failed mails, page 1');
  await noSidewaysScroll(page);
  // From a phone to a wide screen: each 再送信 on one line (its text as tall as one line), nothing sideways.
  for (const width of [375, 768, 1024, 1440]) {
    await page.setViewportSize({ width, height: 800 });
    const lines = await page.getByRole('button', { name: /を再送信$/ }).evaluateAll((buttons) =>
      buttons.map((b) => {
        const range = document.createRange();
        range.selectNodeContents(b);
        return range.getClientRects().length;
      }),
    );
    expect(lines.length, `${width} px`).toBe(20);
    expect(new Set(lines), `${width} px`).toEqual(new Set([1]));
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${width} px`).toBeLessThanOrEqual(width);
  }
  await page.setViewportSize({ width: 375, height: 800 });

  await page.getByRole('button', { name: '次へ' }).click();
  await page.waitForURL('**/admin/mails?page=2');
  await page.getByText('2 / 2 ページ（全22件）').waitFor();
  await expect.poll(() => rows.count()).toBe(2);
  expect(await rows.last().textContent()).toContain('full-21@example.jp');
  await page.getByRole('button', { name: '前へ' }).click();
  await page.getByText('1 / 2 ページ（全22件）').waitFor();

  // The mailbox is fixed: resend. It goes out with the Message-ID the refused attempt carried.
  smtp.accept(email);
  await page.getByRole('button', { name: `${email} 宛ての「メールアドレスの確認」を再送信` }).click();
  expect(await confirmInDialog(page)).toContain(`${email} 宛ての「メールアドレスの確認」を1通、もう一度送ります。`);
  await page.getByText('メールの再送信を受け付けました。まもなく送信されます。').waitFor();
  const mail = await smtp.waitFor(smtp.to(email));
  const [row] = await app.runtime.deps.orm.em
    .fork()
    .execute<{ message_id: string }[]>('select message_id from mail_deliveries where recipient = ?', [email]);
  expect(mail.messageId).toBe(row?.message_id);
  await page.reload();
  await page.getByText('1 / 2 ページ（全21件）').waitFor();
  expect(await page.locator('tbody').textContent()).not.toContain(email);
  await accessible(page, 'after the resend');
  await page.close();
});

it('管理メニュー at 375 px: failed and stuck mail counted and linked, reconciliation findings shown until 確認済み', async () => {
  const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
  await signIn(page);

  // Loading, then an error with a retry, for the mail figures.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const summaryUrl = (url: URL) => url.pathname === '/api/mails/summary';
  await page.route(summaryUrl, async (route) => {
    await held;
    await route.fulfill({ status: 500, contentType: 'application/json', body: '{"message":"サーバーでエラーが発生しました。"}' });
  });
  await page.reload();
  await page.getByText('メールの送信状況を読み込んでいます…').waitFor();
  release();
  await page.getByRole('alert').getByText('サーバーでエラーが発生しました。').waitFor();
  await accessible(page, 'menu, error state');
  await page.unroute(summaryUrl);
  await page.getByRole('button', { name: '再読み込み' }).click();

  // Nothing to do: zero and zero, no findings.
  const counts = page.getByRole('region', { name: '対応が必要なこと' }).locator('dl.counts');
  await counts.getByText('送信に失敗したメール').waitFor();
  expect(await counts.locator('dd').allTextContents()).toEqual(['0件', '0件']);
  await page.getByText('未確認の差異や失敗はありません。').waitFor();
  await accessible(page, 'menu, nothing to do');
  await noSidewaysScroll(page);

  // A mail refused for good, one stuck in 送信中 for 10 minutes, and a reconciliation run with 2 differences.
  const db = app.runtime.deps.orm.em.fork();
  const typed = kyselyOf(db);
  await typed
    .insertInto('mail_deliveries')
    .values([
      {
        ...receiptMail('menu-refused', 'menu-refused@example.jp'),
        status: 'failed',
        permanent: true,
        attempts: 1,
        error: '550 5.1.1 mailbox unavailable',
        failed_at: now(),
        created_at: now(),
      },
      {
        ...receiptMail('menu-stuck', 'menu-stuck@example.jp'),
        status: 'sending',
        attempts: 1,
        claimed_at: millisecondsAgo(10 * 60_000),
        created_at: millisecondsAgo(10 * 60_000),
      },
    ])
    .execute();
  const run = await typed
    .insertInto('reconciliation_runs')
    .values({
      id: randomUUID(),
      trigger: 'schedule',
      days: 7,
      state: 'done',
      findings: 2,
      notified: 'findings',
      created_at: now(),
      started_at: now(),
      finished_at: now(),
    })
    .returning('id')
    .executeTakeFirst();
  await page.reload();
  await counts.getByText('送信に失敗したメール').waitFor();
  await expect.poll(() => counts.locator('dd').allTextContents()).toEqual(['1件', '1件']);
  await page.getByText(/の照合（定期（毎日 3:00）・過去7日）で差異が2件見つかりました（未確認 \d+件）。/).waitFor();
  expect(await page.getByText('（日本時間）の照合').count()).toBeGreaterThan(0);
  await accessible(page, 'menu with failed mail and findings');
  await noSidewaysScroll(page);

  // Each count links to the screen where it is handled.
  await page.getByRole('link', { name: '送信中のまま止まっているメール' }).click();
  await page.waitForURL('**/admin/mails?status=stuck');
  const rows = page.locator('tbody tr');
  await page.locator('tbody tr', { hasText: 'menu-stuck@example.jp' }).waitFor();
  expect(await rows.count()).toBe(1);
  expect(await rows.first().textContent()).toContain('menu-stuck@example.jp');
  expect(await rows.first().textContent()).toContain('送信中のまま停止');
  await accessible(page, 'stuck mails');
  await noSidewaysScroll(page);
  await page.goBack();
  await counts.getByRole('link', { name: '送信に失敗したメール' }).click();
  await page.waitForURL('**/admin/mails');
  await page.getByText('menu-refused@example.jp').waitFor();
  await page.goBack();

  // The findings link to their run, and 確認済み takes them off the menu.
  await page.getByRole('link', { name: '照合結果を見る' }).waitFor();
  expect(await page.getByRole('link', { name: '照合結果を見る' }).getAttribute('href')).toBe(`/admin/payments?run=${run?.id}`);
  await page.getByRole('button', { name: /^確認済みにする/ }).click();
  await page.getByText('確認済みにしました。').waitFor();
  await page.getByText('未確認の差異や失敗はありません。').waitFor();
  await accessible(page, 'menu after 確認済み');
  const [audited] = await db.execute<{ n: number }[]>(
    "select count(*)::int as n from audit_logs where action = 'reconciliation.acknowledge' and target_id = ?",
    [run?.id],
  );
  expect(audited?.n).toBe(1);
  await page.close();
});
