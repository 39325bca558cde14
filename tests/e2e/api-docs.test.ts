import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.ts';
import { startTestServer } from '../support/server.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let browser: Browser;

beforeAll(async () => {
  app = await startTestServer();
  browser = await launchBrowser();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

it('draws the API reference at /api/docs in a browser, from this origin only, under its own policy', async () => {
  const page = await browser.newPage();
  const refused: string[] = [];
  const foreign: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) refused.push(message.text());
  });
  page.on('request', (request) => {
    if (!request.url().startsWith(app.baseUrl) && !request.url().startsWith('data:')) foreign.push(request.url());
  });
  await page.goto(`${app.baseUrl}/api/docs`);
  // Scalar reads /api/openapi.json and lists the operations by their Japanese tags and summaries.
  await expect.poll(() => page.getByText('CSRF トークンを発行する').first().isVisible(), { timeout: 20_000 }).toBe(true);
  const sidebar = (await page.locator('body').innerText()).split('\n').map((line) => line.trim());
  expect(sidebar).toEqual(expect.arrayContaining(['ログイン', '会員登録', '売上', 'エクスポート']));
  expect(refused).toEqual([]);
  expect(foreign).toEqual([]);
  await page.close();
}, 60_000);
