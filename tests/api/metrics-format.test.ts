import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { forgetShopFigures } from '../../src/lib/metrics.ts';
import { freePort } from '../support/ports.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';

/**
 * The live pages Prometheus scrapes, from a web process and a worker, through Prometheus's own linter
 * (`promtool check metrics`, Debian's prometheus package). One exception, documented in
 * docs/operations.md: prom-client's default gauges `nodejs_active_handles_total`,
 * `nodejs_active_requests_total` and `nodejs_active_resources_total` end in `_total` without being
 * counters — upstream names that dashboards use, not ours to rename.
 */
const TOKEN = 'metrics-format-token-0123456789';
const UPSTREAM = /^nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/;
let smtp: TestSmtp;
let t: TestRuntime;
let workerPort: number;

beforeAll(async () => {
  smtp = await startSmtp();
  workerPort = await freePort();
  t = await startTestRuntime({
    mode: 'all',
    smtpUrl: smtp.url,
    env: { METRICS_TOKEN: TOKEN, WORKER_METRICS_PORT: String(workerPort), INSTANCE_ID: 'metrics-format-1' },
  });
}, 60_000);
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

/** promtool's findings for a scrape, one per line (it prints nothing for a clean page). */
function lint(page: string): string[] {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: page, encoding: 'utf8' });
  if (run.error) throw new Error(`promtool is missing (apt-get install prometheus): ${run.error.message}`);
  return `${run.stdout}${run.stderr}`
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

it('the web and worker metrics pages pass promtool check metrics (prom-client upstream nodejs_active_*_total excepted)', async () => {
  // Some requests first, so the request histogram has series of its own.
  for (const path of ['/healthz', '/api/licenses', '/api/nothing-here']) await t.app.request(path);
  forgetShopFigures();
  const web = await t.app.request('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(web.status).toBe(200);
  const worker = await fetch(`http://127.0.0.1:${workerPort}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(worker.status).toBe(200);

  for (const [name, page] of [
    ['web', await web.text()],
    ['worker', await worker.text()],
  ] as const) {
    expect(page, name).toContain('shop_http_request_duration_seconds_bucket');
    expect(page, name).toContain('shop_outbox_backlog');
    const findings = lint(page);
    expect(
      findings.filter((line) => !UPSTREAM.test(line)),
      `${name}: ${findings.join('\n')}`,
    ).toEqual([]);
    // The exception is still needed (else drop it): the upstream names are there and reported.
    expect(
      findings.some((line) => UPSTREAM.test(line)),
      name,
    ).toBe(true);
  }
});
