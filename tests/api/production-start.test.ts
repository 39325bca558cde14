import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../support/env.ts';
import { freePort } from '../support/ports.ts';
import { createDatabase } from '../support/runtime.ts';
import { eventually } from '../support/wait.ts';

const root = resolve(import.meta.dirname, '../..');
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Starts `src/main.ts web` as `npm run start:web` does, recording every module it imports. */
async function startWeb(env: Record<string, string>) {
  const db = await createDatabase();
  cleanups.push(() => db.drop());
  const dataDir = mkdtempSync(join(tmpdir(), 'shop-start-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const record = join(dataDir, 'imports.txt');
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', './tests/support/record-imports.ts', '--import', './src/instrument.ts', 'src/main.ts', 'web'],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: db.url,
        REDIS_URL: TEST_REDIS_URL,
        DATA_DIR: dataDir,
        PORT: String(port),
        LOG_LEVEL: 'info',
        RECORD_IMPORTS_FILE: record,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise((done) => child.once('exit', done));
  cleanups.push(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  await eventually(
    async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok,
    30_000,
    `web start (${output})`,
  );
  child.kill('SIGTERM');
  await exited;
  const loaded = readFileSync(record, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith(`file://${root}/src/`))
    .map((url) => url.slice(`file://${root}/`.length));
  return { loaded: [...new Set(loaded)], output };
}

it('a production start never loads dev-only code (Stripe emulator, private redis-server, demo seeding)', async () => {
  const { loaded } = await startWeb({
    NODE_ENV: 'production',
    AUTH_SECRET: randomBytes(32).toString('hex'),
    SMTP_URL: 'smtp://127.0.0.1:2525',
    STRIPE_SECRET_KEY: 'sk_test_production_start',
    STRIPE_WEBHOOK_SECRET: 'whsec_production_start',
  });
  expect(loaded).toContain('src/main.ts');
  expect(loaded).toContain('src/modules/checkout/index.ts');
  expect(loaded.filter((path) => path.startsWith('src/dev/') || path.endsWith('/demo.ts'))).toEqual([]);
}, 60_000);

it('a development start without Stripe keys does load them (the recorder sees dynamic imports)', async () => {
  const { loaded } = await startWeb({});
  expect(loaded).toEqual(
    expect.arrayContaining([
      'src/dev/stripe-emulator/emulator.ts',
      'src/dev/demo.ts',
      'src/modules/accounts/demo.ts',
      'src/modules/licenses/demo.ts',
    ]),
  );
}, 60_000);
