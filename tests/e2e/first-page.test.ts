import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cookiesOf,
  entryScripts,
  FIRST_PAGE_JS_LIMIT_KIB,
  firstPageScripts,
  gzipSizeOf,
  measureFirstPage,
} from '../../scripts/first-page-js.ts';
import { signInCookie } from '../../scripts/lighthouse.ts';
import { axeViolations, launchBrowser } from '../support/browser.ts';
import { aMember } from '../support/factories.ts';
import { startTestServer, WEB_ROOT } from '../support/server.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;

beforeAll(async () => {
  app = await startTestServer({ env: { SENTRY_DSN: 'http://public@127.0.0.1:9/1' } });
  await aMember(app.runtime.deps.orm, {
    email: 'first-page@example.jp',
    password: 'first-page-pass',
    lastName: '初回',
    firstName: '表示',
    emailVerified: true,
  });
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const kib = (bytes: number) => bytes / 1024;
/**
 * Chunks only the back office, account security (QR codes), the password meter (zxcvbn, built as
 * dist-*.js) or error reporting (Sentry) need.
 */
const NOT_FOR_THE_FIRST_PAGE =
  /\/assets\/(admin-|menu-|audit-log-|payments-|operations-|failed-mails-|issue-|security-|error-reporting-|password-|dist-)/;
const signedInContext = async () => {
  const context = await browser.newContext();
  await context.addCookies(cookiesOf(await signInCookie(app.baseUrl, 'first-page@example.jp', 'first-page-pass'), app.baseUrl));
  return context;
};

describe('the member’s first page is light', () => {
  it(`index.html’s entry and preloaded modules come to at most ${FIRST_PAGE_JS_LIMIT_KIB} KiB of gzip`, () => {
    const scripts = entryScripts(WEB_ROOT);
    expect(scripts.length).toBeGreaterThan(0);
    const total = scripts.reduce((sum, path) => sum + gzipSizeOf(WEB_ROOT, path), 0);
    expect(kib(total)).toBeLessThanOrEqual(FIRST_PAGE_JS_LIMIT_KIB);
  });

  it(`signed out, /licenses (sent on to the sign-in page) loads at most ${FIRST_PAGE_JS_LIMIT_KIB} KiB of gzip JavaScript before its h1`, async () => {
    const context = await browser.newContext();
    try {
      const result = await firstPageScripts(await context.newPage(), app.baseUrl, '/licenses', {
        webRoot: WEB_ROOT,
        heading: 'ログイン',
      });
      expect(result.scripts.length).toBeGreaterThan(0);
      expect(result.scripts.map((s) => s.path).filter((p) => NOT_FOR_THE_FIRST_PAGE.test(p))).toEqual([]);
      expect(result.gzipKiB, JSON.stringify(result.scripts)).toBeLessThanOrEqual(FIRST_PAGE_JS_LIMIT_KIB);
    } finally {
      await context.close();
    }
  });

  it(`signed in, /licenses loads at most ${FIRST_PAGE_JS_LIMIT_KIB} KiB of gzip JavaScript before its h1`, async () => {
    const context = await signedInContext();
    try {
      const page = await context.newPage();
      const result = await firstPageScripts(page, app.baseUrl, '/licenses', { webRoot: WEB_ROOT, heading: 'ライセンス一覧' });
      // Every script the entry names is among them, so nothing was left uncounted.
      expect(result.scripts.map((s) => s.path)).toEqual(expect.arrayContaining(entryScripts(WEB_ROOT)));
      expect(result.scripts.map((s) => s.path).filter((p) => NOT_FOR_THE_FIRST_PAGE.test(p))).toEqual([]);
      expect(result.gzipKiB, JSON.stringify(result.scripts)).toBeLessThanOrEqual(FIRST_PAGE_JS_LIMIT_KIB);
      // Error reporting (a Sentry DSN is configured here) still starts, once the page has drawn.
      await page.waitForFunction(() =>
        performance.getEntriesByType('resource').some((e) => /\/assets\/error-reporting-[\w-]+\.js$/.test(e.name)),
      );
    } finally {
      await context.close();
    }
  });
});

describe('npm run bench', () => {
  it('reports the same measure, signed out and signed in', async () => {
    const cookie = await signInCookie(app.baseUrl, 'first-page@example.jp', 'first-page-pass');
    const figures = await measureFirstPage(app.baseUrl, { cookie, webRoot: WEB_ROOT });
    expect(figures?.map((f) => [f.heading, f.met])).toEqual([
      ['ログイン', true],
      ['ライセンス一覧', true],
    ]);
    for (const f of figures ?? []) expect(f.gzipKiB).toBeGreaterThan(50);
  });
});

describe('a screen whose code is gone after a release', () => {
  it('shows a Japanese message with a reload that brings the screen, at 375 px and axe-clean', { timeout: 60_000 }, async () => {
    const context = await signedInContext();
    try {
      const page = await context.newPage();
      await page.setViewportSize({ width: 375, height: 800 });
      await page.goto(`${app.baseUrl}/licenses`);
      await page.getByRole('heading', { level: 1, name: 'ライセンス一覧' }).waitFor();
      // The release that built this page is replaced: its chunk for the member page is no longer served.
      await page.route(/\/assets\/user-detail-[\w-]+\.js$/, (route) =>
        route.fulfill({ status: 404, contentType: 'application/json', body: '{"message":"not found"}' }),
      );
      await page.getByRole('navigation', { name: '会員メニュー' }).getByRole('link', { name: '会員情報・購入履歴' }).click();
      await page.getByRole('heading', { level: 1, name: 'サイトが更新されました' }).waitFor();
      expect(await page.getByRole('alert').textContent()).toContain('再読み込み');
      expect(await axeViolations(page)).toEqual([]);
      await page.unroute(/\/assets\/user-detail-[\w-]+\.js$/);
      await page.getByRole('button', { name: '再読み込みする' }).click();
      await page.getByRole('heading', { level: 1, name: '会員情報', exact: true }).waitFor();
      expect(new URL(page.url()).pathname).toMatch(/^\/users\//);
    } finally {
      await context.close();
    }
  });
});
