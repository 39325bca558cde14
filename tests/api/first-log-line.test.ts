import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { freePort } from '../support/ports.ts';

const root = resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'shop-first-line-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Spawns `src/main.ts web` and resolves with its first log line and how long after exec it came. */
async function firstLine(env: Record<string, string>) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ['src/main.ts', 'web'], {
    cwd: root,
    // PostgreSQL on a port nothing answers: the process starts, logs, and retries; the test stops it.
    env: {
      PATH: process.env.PATH,
      DATA_DIR: dataDir,
      PORT: String(port),
      DATABASE_URL: 'postgres://shop@127.0.0.1:9/shop',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const line = await new Promise<string>((done, fail) => {
      let output = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
        const end = output.indexOf('\n');
        if (end >= 0) done(output.slice(0, end));
      });
      child.once('exit', (code) => fail(new Error(`exited with ${code} before a line`)));
    });
    return { line: JSON.parse(line) as Record<string, unknown>, ms: performance.now() - started };
  } finally {
    child.kill('SIGKILL');
  }
}

it('logs `starting` with the version and commit as its first line, before the module graph loads', async () => {
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  const { line, ms } = await firstLine({ GIT_COMMIT: 'abc1234def' });
  expect(line).toMatchObject({ level: 'info', msg: 'starting', version, commit: 'abc1234def', mode: 'web' });
  expect(typeof line.instance).toBe('string');
  // Node's own start is part of the second; importing the app would take several.
  expect(ms).toBeLessThan(1_000);

  // Without GIT_COMMIT the commit comes from the checkout (git is there in development).
  const fromGit = await firstLine({});
  expect(fromGit.line.commit).toMatch(/^[0-9a-f]{40}$/);
}, 30_000);
