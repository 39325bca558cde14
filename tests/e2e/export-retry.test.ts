import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { startTestServer } from '../support/server.ts';

/** An export whose worker died shows 失敗 with its reason and is re-run from the screen (sweeper: 1 s). */
let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
const exportId = randomUUID();

beforeAll(async () => {
  app = await startTestServer({ env: { SWEEP_GRACE_SECONDS: '1', SWEEP_EVERY_SECONDS: '1' } });
  await createOrPromoteAdmin(app.runtime.deps.orm, { email: 'retry-admin@example.jp', password: 'retry-admin-pass' });
  const em = app.runtime.deps.orm.em.fork();
  const license = (
    await em.execute(
      "insert into licenses (name, description, price, created_at, updated_at) values ('BLS講習', '', 11000, now(), now()) returning id",
    )
  )[0]?.id;
  await em.execute(
    `insert into sales (buyer_last_name, buyer_first_name, buyer_email, buyer_affiliation, buyer_affiliation_name, license_id, license_name,
      amount, currency, checkout_session_id, stripe_session_id, paid_at, status, created_at, updated_at)
     values ('小林', '四郎', 'kobayashi@example.jp', 4, '〇〇消防', ?, 'BLS講習', 11000, 'jpy', gen_random_uuid(), 'cs_test_retry', now(), 0, now(), now())`,
    [license],
  );
  // An export whose worker was killed mid-build: `running`, silent for a minute, its temp file left.
  await em.execute(
    `insert into exports (id, requested_by, requested_by_email, filters, encoding, replace_unmappable, batch, license_name, state,
      row_count, created_at, started_at, heartbeat_at)
     values (?, 'x', 'retry-admin@example.jp', '{}', 'utf-8', false, false, null, 'running', 0,
      now() - interval '2 minutes', now() - interval '2 minutes', now() - interval '1 minute')`,
    [exportId],
  );
  mkdirSync(join(app.env.dataDir, 'exports'), { recursive: true });
  writeFileSync(join(app.env.dataDir, 'exports', `.${exportId}.999.0.tmp`), 'half');
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

it('an export left running becomes 失敗 with its reason, and 再実行 makes the file', async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill('retry-admin@example.jp');
  await page.getByLabel('パスワード').fill('retry-admin-pass');
  await page.getByRole('button', { name: 'ログインする' }).click();
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
