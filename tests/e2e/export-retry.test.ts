import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { db, jsonb, millisecondsAgo } from '../../src/db/kysely.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { confirmInDialog } from '../support/confirm-dialog.ts';
import { aLicense, aSale } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';
import { enrolAdmin, passTwoFactor } from '../support/two-factor-browser.ts';

/**
 * An export whose worker died shows 失敗 with its reason and is re-run from the screen (sweeper: 1 s);
 * one whose job keeps failing says so while it is retried (every 2 s here); with no worker running,
 * the screen says that nobody will build it.
 */
let app: Awaited<ReturnType<typeof startTestServer>>;
let webOnly: Awaited<ReturnType<typeof startTestServer>> | undefined;
let browser: Browser;
const exportId = randomUUID();

beforeAll(async () => {
  app = await startTestServer({
    env: { SWEEP_GRACE_SECONDS: '1', SWEEP_EVERY_SECONDS: '1', JOB_RETRY_MAX_DELAY_SECONDS: '2' },
  });
  await createOrPromoteAdmin(app.runtime.deps.orm, { email: 'retry-admin@example.jp', password: 'retry-admin-pass' });
  await enrolAdmin(app.app, { email: 'retry-admin@example.jp', password: 'retry-admin-pass' });
  const orm = app.runtime.deps.orm;
  const license = await aLicense(orm, { name: 'BLS講習' });
  const buyer = { lastName: '小林', firstName: '四郎', email: 'kobayashi@example.jp', affiliationName: '〇〇消防' };
  await aSale(orm, license, { ...buyer, stripeSessionId: 'cs_test_retry' });
  // An export whose worker was killed mid-build: `running`, silent for a minute, its temp file left.
  await db(orm.em.fork())
    .insertInto('exports')
    .values({
      id: exportId,
      requested_by: 'x',
      requested_by_email: 'retry-admin@example.jp',
      filters: jsonb({}),
      encoding: 'utf-8',
      replace_unmappable: false,
      batch: false,
      license_name: null,
      state: 'running',
      row_count: 0,
      created_at: millisecondsAgo(120_000),
      started_at: millisecondsAgo(120_000),
      heartbeat_at: millisecondsAgo(60_000),
    })
    .execute();
  mkdirSync(join(app.env.dataDir, 'exports'), { recursive: true });
  writeFileSync(join(app.env.dataDir, 'exports', `.${exportId}.999.0.tmp`), 'half');
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await webOnly?.stop();
  await app?.stop();
});

async function signIn(page: Page, baseUrl: string) {
  await page.goto(`${baseUrl}/login`);
  // A server just started on a busy machine may take a while for its first page.
  await page.getByLabel('メールアドレス').waitFor({ timeout: 30_000 });
  await page.getByLabel('メールアドレス').fill('retry-admin@example.jp');
  await page.getByLabel('パスワード').fill('retry-admin-pass');
  const signingInAs = await page.getByLabel('メールアドレス').inputValue();
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, signingInAs);
  await page.waitForURL('**/admin');
}

it('an export left running becomes 失敗 with its reason, and 再実行 makes the file', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill('retry-admin@example.jp');
  await page.getByLabel('パスワード').fill('retry-admin-pass');
  const signingInAs = await page.getByLabel('メールアドレス').inputValue();
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, signingInAs);
  await page.waitForURL('**/admin');
  await page.goto(`${app.baseUrl}/admin/licenses/issue`);
  await page.getByText('CSVの作成が途中で止まりました').waitFor({ timeout: 15_000 });
  expect(existsSync(join(app.env.dataDir, 'exports', `.${exportId}.999.0.tmp`))).toBe(false);
  expect(await axeViolations(page)).toEqual([]);

  await page.getByRole('button', { name: '再実行' }).click();
  await page.getByText('エクスポートを再実行します。').waitFor();
  await page.getByRole('link', { name: /^data\.csv$|\.csv$/ }).waitFor({ timeout: 15_000 });
  await page.getByText('CSVの作成が途中で止まりました').waitFor({ state: 'detached' });
  expect(await axeViolations(page)).toEqual([]);
  await page.close();
}, 90_000);

it('an export whose folder is unwritable says 「作成に失敗しています（再試行中）」 with the reason, then is made once it is writable', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 375, height: 800 });
  await signIn(page, app.baseUrl);
  // The exports folder becomes unusable: a file where the folder should be.
  const folder = join(app.env.dataDir, 'exports');
  renameSync(folder, `${folder}.aside`);
  writeFileSync(folder, 'not a folder');
  try {
    await page.goto(`${app.baseUrl}/admin/licenses/issue`);
    await page.getByRole('button', { name: 'CSVを作成する' }).click();
    await confirmInDialog(page);
    await page.getByText('作成に失敗しています（再試行中）').waitFor({ timeout: 15_000 });
    await page.getByText('理由：CSVを作成できませんでした。保存先のフォルダを用意できませんでした。', { exact: false }).waitFor();
    expect(await page.getByText(/EEXIST|mkdir/).count()).toBe(0);
    expect(await page.getByText('作成中', { exact: true }).count()).toBe(0);
    // Not over: no 再実行 while the job retries.
    expect(await page.getByRole('button', { name: '再実行' }).count()).toBe(0);
    // A worker is running: no warning about it.
    expect(await page.getByText('処理担当（ワーカー）が動いていません').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: 'test-results/export-retrying.png', fullPage: true });
  } finally {
    rmSync(folder, { force: true });
    renameSync(`${folder}.aside`, folder);
  }
  await page.getByText('作成に失敗しています（再試行中）').waitFor({ state: 'detached', timeout: 20_000 });
  expect(await page.getByRole('link', { name: /\.csv$/ }).count()).toBe(2);
  expect(await axeViolations(page)).toEqual([]);
  await page.close();
}, 90_000);

it('with no worker running, an export waiting says 「処理担当（ワーカー）が動いていません」', async () => {
  webOnly = await startTestServer({ mode: 'web' });
  await createOrPromoteAdmin(webOnly.runtime.deps.orm, { email: 'retry-admin@example.jp', password: 'retry-admin-pass' });
  await enrolAdmin(webOnly.app, { email: 'retry-admin@example.jp', password: 'retry-admin-pass' });
  const page = await browser.newPage();
  await page.setViewportSize({ width: 375, height: 800 });
  await signIn(page, webOnly.baseUrl);
  await page.goto(`${webOnly.baseUrl}/admin/licenses/issue`);
  await page.getByText('まだCSVは作成されていません。').waitFor();
  expect(await page.getByText('処理担当（ワーカー）が動いていません').count()).toBe(0);
  // 一括処理 is off on arrival.
  expect(await page.getByLabel(/^一括処理/).isChecked()).toBe(false);
  await page.getByRole('button', { name: 'CSVを作成する' }).click();
  expect(await confirmInDialog(page)).toContain('売上の状態は変わりません。');
  const warning = page.getByRole('alert').filter({ hasText: '処理担当（ワーカー）が動いていません。' });
  await warning.waitFor();
  await page.getByText('待機中').waitFor();
  expect(await axeViolations(page)).toEqual([]);
  // 管理メニュー and 決済の受信箱 say so too.
  for (const path of ['/admin', '/admin/payments']) {
    await page.goto(`${webOnly.baseUrl}${path}`);
    await page.getByRole('alert').filter({ hasText: '処理担当（ワーカー）が動いていません。' }).waitFor();
    expect(await axeViolations(page), path).toEqual([]);
  }
  await page.close();
}, 90_000);
