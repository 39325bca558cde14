import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

/**
 * What is running, for the first log line: package.json's version and the commit, from `GIT_COMMIT`
 * (set it where the release is built without .git, e.g. a container image) or else `git rev-parse`.
 */
export function buildInfo(env: NodeJS.ProcessEnv = process.env): { version: string; commit: string | undefined } {
  let version = 'unknown';
  try {
    version = (JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { version?: string }).version ?? version;
  } catch {
    // A release without package.json still starts.
  }
  return { version, commit: env.GIT_COMMIT?.trim() || gitCommit() };
}

function gitCommit(): string | undefined {
  try {
    const out = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 1_000,
    });
    return out.trim() || undefined;
  } catch {
    return undefined;
  }
}
