import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../support/env.ts';
import { freePort } from '../support/ports.ts';

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'shop-embedded-'));
let port = 0;
let server: ChildProcess | undefined;
let output = '';

// The product as a newcomer runs it: no DATABASE_URL, so embedded PostgreSQL (PGlite) under DATA_DIR.
const env = () => {
  const { DATABASE_URL: _omit, ...rest } = process.env;
  return { ...rest, DATA_DIR: dataDir, PORT: String(port), REDIS_URL: `${TEST_REDIS_URL}/13`, LOG_LEVEL: 'info' };
};

beforeAll(async () => {
  port = await freePort();
  // PGlite allows one process at a time: the CLI runs (and migrates) before the server starts.
  const cli = await run(
    process.execPath,
    ['src/cli/admin-create.ts', '--email', 'owner@example.jp', '--password', 'keeper-pass-123'],
    { env: env() },
  );
  expect(cli.stdout).toContain('管理者を作成しました');
  server = spawn(process.execPath, ['--import', './src/instrument.ts', 'src/main.ts', 'all'], {
    env: env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (d) => (output += d));
  server.stderr?.on('data', (d) => (output += d));
  for (let i = 0; i < 150; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    if (server.exitCode !== null) break;
    await sleep(200);
  }
  throw new Error(`the embedded app did not become ready:\n${output}`);
}, 60_000);

afterAll(async () => {
  if (server && server.exitCode === null) server.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

it('boots on PGlite, is ready, lets an administrator sign in, and stops cleanly on SIGTERM', async () => {
  const base = `http://127.0.0.1:${port}`;
  const ready = await fetch(`${base}/readyz`);
  expect(await ready.json()).toMatchObject({ status: 'ok', checks: { database: 'ok', redis: 'ok' } });

  const csrf = await fetch(`${base}/api/csrf-token`);
  const token =
    csrf.headers
      .getSetCookie()
      .find((c) => c.startsWith('XSRF-TOKEN='))
      ?.split(';')[0]
      ?.slice('XSRF-TOKEN='.length) ?? '';
  const login = await fetch(`${base}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: `XSRF-TOKEN=${token}`, 'x-xsrf-token': decodeURIComponent(token) },
    body: JSON.stringify({ email: 'owner@example.jp', password: 'keeper-pass-123' }),
  });
  expect(login.status).toBe(200);
  expect((await login.json()).users[0]).toMatchObject({ email: 'owner@example.jp', role: 'admin' });

  const session = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const me = await (await fetch(`${base}/api/login`, { headers: { cookie: session } })).json();
  expect(me.users[0].email).toBe('owner@example.jp');

  const exited = new Promise<number | null>((done) => server?.once('exit', (code) => done(code)));
  server?.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(output).toContain('stopped');
}, 60_000);
