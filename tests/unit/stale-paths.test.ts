import { existsSync, globSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

// A file named in a comment of src/ or in README.md exists: by its path from the repository root, from
// the naming file's folder, or as the tail of a source file's path (`accounts/auth.ts`, `devices.ts`).
const SOURCES = globSync('{src,workers,web/src,scripts,tests,migrations}/**/*.{ts,tsx}');
const PATH = /(?<![\w/.-])[\w./-]*[\w-]\.tsx?\b/g;

function exists(path: string, from: string): boolean {
  const bare = path.replace(/^\.\//, '');
  if (existsSync(bare) || existsSync(normalize(join(dirname(from), path)))) return true;
  return SOURCES.some((file) => file === bare || file.endsWith(`/${bare}`));
}

function commentText(file: string): string {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^(\/\/|\/\*|\*)/.test(line))
    .join('\n');
}

function stalePaths(file: string, text: string): string[] {
  return [...text.matchAll(PATH)]
    .map(([path]) => path)
    .filter((path) => !exists(path, file))
    .map((path) => `${file}: ${path}`);
}

describe('paths named in comments and the README', () => {
  it('finds a missing file and accepts the forms that resolve', () => {
    expect(stalePaths('src/lib/metrics.ts', 'see src/host/handlers.ts and src/lib/iso-time.ts')).toEqual([
      'src/lib/metrics.ts: src/host/handlers.ts',
      'src/lib/metrics.ts: src/lib/iso-time.ts',
    ]);
    expect(stalePaths('src/modules/accounts/index.ts', 'workers/handlers.ts, ./auth.ts, accounts/sign-in.ts, csv.ts')).toEqual(
      [],
    );
  });

  it('name only files that exist', () => {
    const files = globSync('src/**/*.ts').filter((file) => file !== 'src/db/schema.ts');
    const stale = [
      ...files.flatMap((file) => stalePaths(file, commentText(file))),
      ...stalePaths('README.md', readFileSync('README.md', 'utf8')),
    ];
    expect(stale).toEqual([]);
  });
});
