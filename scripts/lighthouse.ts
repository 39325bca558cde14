/**
 * Lighthouse (mobile: a mid-range phone on slow 4G, simulated) on the shop's first pages, in
 * Debian's Chromium when it is installed; no network beyond the shop itself.
 *
 *   node scripts/lighthouse.ts http://127.0.0.1:3000 [email password]   (a running shop)
 *
 * `npm run bench` calls `lighthouseScores` at its end with its own server and session.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const LIGHTHOUSE_TARGETS = { performance: 90, cls: 0.1 };
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

export interface LighthouseScore {
  path: string;
  performance: number;
  fcpMs: number;
  lcpMs: number;
  tbtMs: number;
  cls: number;
  speedIndexMs: number;
  met: boolean;
}

/** Starts Chromium with a DevTools port Lighthouse can drive. */
async function startChromium(path: string): Promise<{ port: number; child: ChildProcess; profile: string }> {
  const profile = mkdtempSync(join(tmpdir(), 'lighthouse-'));
  const child = spawn(
    path,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-default-apps',
      '--disable-extensions',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`Chromium did not start: ${text}`)), 20_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Chromium exited (${code}): ${text}`));
    });
  });
  return { port, child, profile };
}

/**
 * Performance of each path (signed in with `cookie` when given), or undefined when no Chromium is
 * installed. Prints one table.
 */
export async function lighthouseScores(
  baseUrl: string,
  cookie?: string,
  paths: readonly string[] = ['/login', '/licenses'],
): Promise<LighthouseScore[] | undefined> {
  const chromium = process.env.CHROMIUM_PATH ?? CHROMIUM.find((p) => existsSync(p));
  if (!chromium) {
    console.log('\nLighthouse: skipped (no Chromium at /usr/bin/chromium)');
    return undefined;
  }
  const { default: lighthouse } = await import('lighthouse');
  const browser = await startChromium(chromium);
  const scores: LighthouseScore[] = [];
  try {
    for (const path of paths) {
      // /login sends a signed-in visitor on: measure it signed out.
      const headers = cookie && path !== '/login' ? { Cookie: cookie } : undefined;
      const result = await lighthouse(
        `${baseUrl}${path}`,
        { port: browser.port, output: 'json', logLevel: 'error', onlyCategories: ['performance'], extraHeaders: headers },
        undefined,
      );
      if (!result) throw new Error(`Lighthouse gave no result for ${path}`);
      const { lhr } = result;
      // LIGHTHOUSE_REPORTS=<dir> keeps each full report (open it in Chrome's Lighthouse viewer).
      if (process.env.LIGHTHOUSE_REPORTS) {
        mkdirSync(process.env.LIGHTHOUSE_REPORTS, { recursive: true });
        writeFileSync(join(process.env.LIGHTHOUSE_REPORTS, `${path.replace(/\W+/g, '_') || 'root'}.json`), JSON.stringify(lhr));
      }
      if (lhr.runtimeError) console.error(`Lighthouse on ${path}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
      const audit = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
      const performance = Math.round((lhr.categories.performance?.score ?? 0) * 100);
      const cls = +audit('cumulative-layout-shift').toFixed(3);
      scores.push({
        path,
        performance,
        fcpMs: Math.round(audit('first-contentful-paint')),
        lcpMs: Math.round(audit('largest-contentful-paint')),
        tbtMs: Math.round(audit('total-blocking-time')),
        cls,
        speedIndexMs: Math.round(audit('speed-index')),
        met: performance >= LIGHTHOUSE_TARGETS.performance && cls < LIGHTHOUSE_TARGETS.cls,
      });
    }
  } finally {
    browser.child.kill('SIGTERM');
    await new Promise((resolve) => browser.child.once('exit', resolve).once('error', resolve));
    rmSync(browser.profile, { recursive: true, force: true });
  }
  console.log(
    `\n| Lighthouse mobile (${chromium}) | performance | FCP ms | LCP ms | TBT ms | CLS | Speed Index ms | met (≥ ${LIGHTHOUSE_TARGETS.performance}, CLS < ${LIGHTHOUSE_TARGETS.cls}) |\n|---|---|---|---|---|---|---|---|`,
  );
  for (const s of scores) {
    console.log(
      `| ${s.path} | ${s.performance} | ${s.fcpMs} | ${s.lcpMs} | ${s.tbtMs} | ${s.cls} | ${s.speedIndexMs} | ${s.met ? 'yes' : 'NO'} |`,
    );
  }
  return scores;
}

/** Signs in through the API (CSRF token first) and returns the session's cookie header. */
export async function signInCookie(baseUrl: string, email: string, password: string): Promise<string> {
  const csrf = await fetch(`${baseUrl}/api/csrf-token`);
  const token = csrf.headers.getSetCookie()[0]?.split(';')[0] ?? '';
  const login = await fetch(`${baseUrl}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: token, 'x-xsrf-token': decodeURIComponent(token.split('=')[1] ?? '') },
    body: JSON.stringify({ email, password }),
  });
  if (!login.ok) throw new Error(`sign-in failed: ${login.status}`);
  return [token, ...login.headers.getSetCookie().map((c) => c.split(';')[0])].join('; ');
}

if (import.meta.filename === process.argv[1]) {
  const [baseUrl, email, password] = process.argv.slice(2);
  if (!baseUrl) {
    console.error('usage: node scripts/lighthouse.ts <base url> [email password]');
    process.exit(2);
  }
  const cookie = email && password ? await signInCookie(baseUrl, email, password) : undefined;
  const scores = await lighthouseScores(baseUrl, cookie);
  process.exitCode = scores && !scores.every((s) => s.met) ? 1 : 0;
}
