import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aMember } from '../support/factories.ts';
import { startTestServer } from '../support/server.ts';
import { anEnrolledAdmin, signInWithTwoFactor } from '../support/two-factor-browser.ts';

/**
 * ADMIN_ALLOWED_NETWORKS in Chromium: the browser reaches the shop from 127.0.0.1, outside the one
 * network allowed here, so staff meet the page that says why (not a broken admin screen); members
 * are not concerned.
 */
let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;
let admin: { email: string; password: string };
let member: Awaited<ReturnType<typeof aMember>>;

beforeAll(async () => {
  app = await startTestServer({ env: { ADMIN_ALLOWED_NETWORKS: '192.0.2.0/24' } });
  admin = await anEnrolledAdmin(app, { email: 'network-admin@example.jp', password: 'kumo-umi-sora-42' });
  member = await aMember(app.runtime.deps.orm, { lastName: '佐藤', firstName: '美咲', password: 'hana-tori-kaze-77' });
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

/** The refusal page, waited for by what it shows: the redirect is a page load of its own, not the one asked for. */
async function refusedPage(page: Page) {
  await page.getByRole('heading', { level: 1, name: 'このネットワークからは管理画面を使えません' }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/admin/network-refused');
}

it('an administrator outside the allowed networks gets a clear Japanese page on every admin screen', async () => {
  const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
  await signInWithTwoFactor(page, app.baseUrl, admin);
  await refusedPage(page);
  const heading = page.getByRole('heading', { level: 1 });
  expect(await heading.textContent()).toBe('このネットワークからは管理画面を使えません');
  await page.getByText('許可されたネットワーク（社内のネットワークなど）からだけ使えます', { exact: false }).waitFor();
  expect(await page.getByRole('alert').count()).toBe(0);
  expect(await axeViolations(page), 'network refused').toEqual([]);

  // Any other admin screen, typed in: the same page, not an error on each list.
  for (const path of ['/admin/users', '/admin/sales/1', '/admin/audit']) {
    await page.goto(`${app.baseUrl}${path}`, { waitUntil: 'commit' });
    await refusedPage(page);
    expect(await heading.textContent()).toBe('このネットワークからは管理画面を使えません');
  }
  expect(await page.title()).toContain('管理画面を使えません');
  await page.close();
});

it('a member from the same address is not concerned', async () => {
  const page = await browser.newPage();
  await signInWithTwoFactor(page, app.baseUrl, member, `**/users/${member.id}`);
  await page.getByRole('heading', { name: '購入履歴' }).waitFor();
  expect(page.url()).not.toContain('network-refused');
  expect(await page.getByText('このネットワークからは管理画面を使えません').count()).toBe(0);
  expect(await axeViolations(page), 'member page').toEqual([]);
  await page.close();
});
