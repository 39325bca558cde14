import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium (never a downloaded browser), with the flags that work on these machines. */
export function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();
}

export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
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
  // Fail a step in seconds, not at the test's time limit.
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (...args) => {
    const page = await newPage(...args);
    page.setDefaultTimeout(10_000);
    return page;
  };
  return browser;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** WCAG 2 A/AA violations on the current page, as "rule: target" lines. */
/** WCAG 2.1 A/AA; `{ defaults: true }`: axe's default rule set, best practices included. */
export async function axeViolations(page: Page, options: { defaults?: boolean } = {}): Promise<string[]> {
  // Evaluated through the DevTools protocol, so the page's CSP (no inline scripts) still holds.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async (defaults) => {
    // Colours are judged as they settle, not half-way through a fade-in (a loaded machine is slow).
    await Promise.all(document.getAnimations().map((animation) => animation.finished.catch(() => undefined)));
    // biome-ignore lint/suspicious/noExplicitAny: axe is injected at run time
    const axe = (window as any).axe;
    const result = await axe.run(
      document,
      defaults ? {} : { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } },
    );
    return result.violations.map(
      (v: { id: string; nodes: { target: string[] }[] }) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    );
  }, options.defaults ?? false);
  // Not WCAG by axe, but a broken layout all the same: nothing may stick out sideways.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  return [...(violations as string[]), ...(overflow > 0 ? [`horizontal-overflow: ${overflow}px`] : [])];
}
