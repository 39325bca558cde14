/**
 * The JavaScript a page loads before it shows its heading: every script the browser asks for from
 * navigation until the page's `h1` is visible, each counted at its gzip size (level 9, the copy the
 * build writes next to it; see vite.config.ts). The measure of a light first page (≤ 170 KiB).
 *
 *   node scripts/first-page-js.ts http://127.0.0.1:3000 [email password]   (a running shop, built dist/web)
 *
 * The e2e test (tests/e2e/first-page.test.ts) and `npm run bench` use `firstPageScripts`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';

export const FIRST_PAGE_JS_LIMIT_KIB = 170;
export const DEFAULT_WEB_ROOT = resolve(import.meta.dirname, '../dist/web');

export interface FirstPageScripts {
  path: string;
  /** The heading the page showed (its h1). */
  heading: string;
  /** Scripts requested before the heading showed, as paths under the site, with their gzip size. */
  scripts: { path: string; gzipBytes: number }[];
  gzipKiB: number;
}

/** The gzip size of a built file: the build's own `.gz` copy, else the file compressed here. */
export function gzipSizeOf(webRoot: string, urlPath: string): number {
  const file = join(webRoot, urlPath);
  if (existsSync(`${file}.gz`)) return readFileSync(`${file}.gz`).length;
  return gzipSync(readFileSync(file), { level: 9 }).length;
}

/** The entry script and the modules index.html preloads: what every page loads before any route's code. */
export function entryScripts(webRoot = DEFAULT_WEB_ROOT): string[] {
  const html = readFileSync(join(webRoot, 'index.html'), 'utf8');
  const entry = [...html.matchAll(/<script type="module"[^>]* src="([^"]+\.js)"/g)].map((m) => m[1] as string);
  const preloads = [...html.matchAll(/<link rel="modulepreload"[^>]* href="([^"]+\.js)"/g)].map((m) => m[1] as string);
  return [...entry, ...preloads];
}

/**
 * Opens `baseUrl + path` in `page` (a fresh context, so nothing is cached) and waits for its h1 (the one
 * named `heading` when given). The moment the h1 enters the document is taken by a MutationObserver
 * installed before any of the page's scripts; the scripts counted are those whose request started
 * before it (Resource Timing), whichever way they were asked for (entry, modulepreload, import()).
 */
export async function firstPageScripts(
  page: Page,
  baseUrl: string,
  path: string,
  { webRoot = DEFAULT_WEB_ROOT, heading }: { webRoot?: string; heading?: string } = {},
): Promise<FirstPageScripts> {
  await page.addInitScript((name: string | null) => {
    const w = window as unknown as { __firstH1?: { at: number; text: string } };
    const seen = () => {
      if (w.__firstH1) return true;
      const h1 = [...document.querySelectorAll('h1')].find((h) => name === null || h.textContent?.trim() === name);
      if (h1) w.__firstH1 = { at: performance.now(), text: h1.textContent?.trim() ?? '' };
      return Boolean(h1);
    };
    const observer = new MutationObserver(() => seen() && observer.disconnect());
    observer.observe(document, { childList: true, subtree: true });
  }, heading ?? null);
  await page.goto(`${baseUrl}${path}`);
  const h1 = heading ? page.getByRole('heading', { level: 1, name: heading }) : page.locator('h1').first();
  await h1.waitFor({ state: 'visible' });
  const { first, requested } = await page.evaluate((origin) => {
    const w = window as unknown as { __firstH1?: { at: number; text: string } };
    const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
    return {
      first: w.__firstH1 ?? { at: Number.POSITIVE_INFINITY, text: '' },
      requested: entries
        .filter((e) => e.name.startsWith(`${origin}/`) && new URL(e.name).pathname.endsWith('.js'))
        .map((e) => ({ path: new URL(e.name).pathname, startTime: e.startTime })),
    };
  }, new URL(baseUrl).origin);
  const before = [...new Set(requested.filter((r) => r.startTime <= first.at).map((r) => r.path))];
  const scripts = before.map((p) => ({ path: p, gzipBytes: gzipSizeOf(webRoot, p) }));
  const total = scripts.reduce((sum, s) => sum + s.gzipBytes, 0);
  return { path, heading: first.text, scripts, gzipKiB: +(total / 1024).toFixed(1) };
}

/** A `Cookie` header (`a=1; b=2`) as cookies for a browser context. */
export function cookiesOf(header: string, url: string) {
  return header.split('; ').map((pair) => {
    const at = pair.indexOf('=');
    return { name: pair.slice(0, at), value: pair.slice(at + 1), url };
  });
}

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * `/licenses` signed out (sent on to the sign-in page) and, with `cookie`, signed in: the JavaScript
 * before each page's h1, in Debian's Chromium; undefined when no Chromium is installed. Prints a table.
 */
export async function measureFirstPage(
  baseUrl: string,
  { cookie, webRoot = DEFAULT_WEB_ROOT }: { cookie?: string; webRoot?: string } = {},
): Promise<(FirstPageScripts & { met: boolean })[] | undefined> {
  const executablePath = process.env.CHROMIUM_PATH ?? CHROMIUM.find((p) => existsSync(p));
  if (!executablePath) {
    console.log('\nFirst-page JavaScript: skipped (no Chromium at /usr/bin/chromium)');
    return undefined;
  }
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const results: (FirstPageScripts & { met: boolean })[] = [];
  try {
    const runs: [string, string | undefined, string][] = [['signed out', undefined, 'ログイン']];
    if (cookie) runs.push(['signed in', cookie, 'ライセンス一覧']);
    for (const [, signedInWith, heading] of runs) {
      // The session goes as a Cookie header on every request: a production shop's `__Host-` cookies
      // cannot be planted into the browser's jar for a plain-http loopback address.
      const context = await browser.newContext(signedInWith ? { extraHTTPHeaders: { cookie: signedInWith } } : {});
      const result = await firstPageScripts(await context.newPage(), baseUrl, '/licenses', { webRoot, heading });
      results.push({ ...result, met: result.gzipKiB <= FIRST_PAGE_JS_LIMIT_KIB });
      await context.close();
    }
  } finally {
    await browser.close();
  }
  console.log(
    `\n| first page (JavaScript requested before the h1) | h1 | scripts | gzip KiB | met (≤ ${FIRST_PAGE_JS_LIMIT_KIB}) |\n|---|---|---|---|---|`,
  );
  for (const r of results)
    console.log(`| ${r.path} | ${r.heading} | ${r.scripts.length} | ${r.gzipKiB} | ${r.met ? 'yes' : 'NO'} |`);
  return results;
}

if (import.meta.filename === process.argv[1]) {
  const [baseUrl, email, password] = process.argv.slice(2);
  if (!baseUrl) {
    console.error('usage: node scripts/first-page-js.ts <base url> [email password]');
    process.exit(2);
  }
  const { signInCookie } = await import('./lighthouse.ts');
  const cookie = email && password ? await signInCookie(baseUrl, email, password) : undefined;
  const results = await measureFirstPage(baseUrl, { cookie });
  for (const r of results ?? []) {
    console.log(`\n${r.path} (${r.heading}):`);
    for (const s of r.scripts) console.log(`  ${(s.gzipBytes / 1024).toFixed(1).padStart(7)} KiB  ${s.path}`);
  }
  process.exitCode = (results ?? []).every((r) => r.met) ? 0 : 1;
}
