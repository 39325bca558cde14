import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { db, jsonb, millisecondsAgo } from '../../src/db/kysely.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aMember } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';
import { enrolAdmin, passTwoFactor } from '../support/two-factor-browser.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
let memberId: string;

/** Today in Japan, as the date inputs and the API take it. */
const todayInJapan = () => new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Tokyo' }).format(new Date());

beforeAll(async () => {
  app = await startTestServer();
  await createOrPromoteAdmin(app.runtime.deps.orm, { email: 'audit-admin@example.jp', password: 'audit-admin-pass' });
  await enrolAdmin(app.app, { email: 'audit-admin@example.jp', password: 'audit-admin-pass' });
  memberId = (
    await aMember(app.runtime.deps.orm, {
      email: 'suzuki@example.jp',
      password: 'member-pass-123',
      lastName: '鈴木',
      firstName: '一郎',
      emailVerified: true,
      affiliation: 4,
      affiliationName: '第一消防署',
    })
  ).id;
  // Someone else's older change, for the filters to leave out.
  await db(app.runtime.deps.orm.em.fork())
    .insertInto('audit_logs')
    .values({
      id: randomUUID(),
      actor_id: randomUUID(),
      actor_email: 'other-admin@example.jp',
      action: 'license.update',
      target_type: 'license',
      target_id: '1',
      before: jsonb({ price: 5500 }),
      after: jsonb({ price: 6600 }),
      created_at: millisecondsAgo(3 * 24 * 3_600_000),
    })
    .execute();
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const accessible = async (page: Page, name: string) => expect(await axeViolations(page), name).toEqual([]);

it('an administrator changes a user, then finds the change in 操作履歴 with its before → after', async () => {
  const page = await browser.newPage();
  await page.goto(`${app.baseUrl}/login`);
  await page.getByLabel('メールアドレス').fill('audit-admin@example.jp');
  await page.getByLabel('パスワード').fill('audit-admin-pass');
  const signingInAs = await page.getByLabel('メールアドレス').inputValue();
  await page.getByRole('button', { name: 'ログインする' }).click();
  await passTwoFactor(page, signingInAs);
  await page.waitForURL('**/admin');

  // The change: 所属名 on the user's edit page.
  await page.goto(`${app.baseUrl}/admin/users/${memberId}/edit`);
  await page.getByLabel('所属名').fill('中央消防署');
  await page.getByRole('button', { name: '確認画面へ進む' }).click();
  await page.waitForURL('**/edit/confirm');
  await page.getByRole('button', { name: '保存する' }).click();
  await page.getByText('会員情報を更新しました。').waitFor();

  // The whole log, newest first, from the admin menu.
  await page.goto(`${app.baseUrl}/admin`);
  await page.getByRole('link', { name: '操作履歴' }).click();
  await page.waitForURL('**/admin/audit');
  expect(await page.title()).toBe('操作履歴｜ライセンスストア');
  await page.getByRole('heading', { name: '操作履歴' }).waitFor();
  const rows = page.locator('tbody tr');
  // The change, this administrator's two sign-ins (the browser's and the enrolment's) and the older entry.
  await rows.nth(3).waitFor();
  expect(await rows.count()).toBe(4);
  await expect.poll(() => rows.first().textContent()).toContain('ユーザー情報の変更');
  expect(await rows.nth(1).textContent()).toContain('管理者のログイン');
  expect(await rows.nth(1).textContent()).toContain('パスワードと確認コード');
  // A sign-in is what happened, not a change from nothing; the browser as people name it.
  expect(await rows.nth(1).textContent()).not.toContain('変更前');
  expect(await rows.nth(1).textContent()).toContain('Chrome（Linux）');
  expect(await rows.nth(1).textContent()).not.toContain('Mozilla/5.0');
  expect(await rows.nth(3).textContent()).toContain('other-admin@example.jp');
  await accessible(page, 'the whole log');

  // Filters: the action (by its Japanese name), the actor (part of the e-mail) and today's date.
  await page.getByLabel('操作', { exact: true }).selectOption({ label: 'ユーザー情報の変更' });
  await page.getByLabel('操作者（メールアドレスの一部）').fill('AUDIT-ADMIN');
  await page.getByLabel('期間（から）').fill(todayInJapan());
  await page.getByLabel('期間（まで）').fill(todayInJapan());
  await page.getByRole('button', { name: '検索する' }).click();
  await page.waitForURL(/action=user\.update/);
  expect(new URL(page.url()).searchParams.get('actor')).toBe('AUDIT-ADMIN');
  await expect.poll(() => rows.count()).toBe(1);
  const row = rows.first();
  expect(await row.textContent()).toContain('audit-admin@example.jp');
  // The before → after of the changed field only (変更前 / 変更後 are there for screen readers).
  const change = row.locator('.audit-changes li');
  expect(await change.count()).toBe(1);
  expect((await change.first().innerText()).replace(/\s+/g, '')).toBe('所属名変更前：第一消防署→変更後：中央消防署');
  // The record is named as a person knows it (never its UUID) and links to its screen.
  const target = row.getByRole('link', { name: '鈴木 一郎（suzuki@example.jp）' });
  expect(await row.textContent()).not.toContain(memberId);
  expect(await target.getAttribute('href')).toBe(`/admin/users/${memberId}`);
  await accessible(page, 'filtered');

  // The filters live in the URL: a reload keeps them, in the form too.
  await page.reload();
  await expect.poll(() => rows.count()).toBe(1);
  expect(await page.getByLabel('操作', { exact: true }).inputValue()).toBe('user.update');
  expect(await page.getByLabel('操作者（メールアドレスの一部）').inputValue()).toBe('AUDIT-ADMIN');

  // Nothing on another day: the empty state. A reversed range: the field's Japanese message.
  await page.getByLabel('期間（から）').fill('2020-01-01');
  await page.getByLabel('期間（まで）').fill('2020-01-31');
  await page.getByRole('button', { name: '検索する' }).click();
  await page.getByText('条件に合う操作履歴はありません。').waitFor();
  await accessible(page, 'empty');
  await page.getByLabel('期間（から）').fill('2020-02-01');
  await page.getByRole('button', { name: '検索する' }).click();
  await page.getByText('終了日は開始日と同じか、それより後の日付を指定してください。').waitFor();
  await accessible(page, 'bad filter');

  // A phone: one card per entry, nothing sideways.
  await page.getByRole('button', { name: '条件をクリア' }).click();
  await expect.poll(() => rows.count()).toBe(4);
  await page.setViewportSize({ width: 375, height: 800 });
  await accessible(page, '375 px');
  await page.screenshot({ path: 'test-results/audit.png', fullPage: true });

  await rows.first().getByRole('link', { name: '鈴木 一郎（suzuki@example.jp）' }).click();
  await page.waitForURL(`**/admin/users/${memberId}`);
  await page.getByText('中央消防署', { exact: true }).waitFor();
  await page.close();
}, 90_000);
