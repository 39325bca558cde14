import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkArchitecture, importsOf, tablesNamedBy } from '../support/architecture.ts';

const root = resolve(import.meta.dirname, '../..');
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'arch-'));
  temps.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** A copy of this repository's src/, workers/ and tests/ (no node_modules), to plant violations in. */
function copyOfRepository(): string {
  const dir = mkdtempSync(join(tmpdir(), 'arch-repo-'));
  temps.push(dir);
  for (const part of ['src', 'workers', 'tests', 'scripts']) cpSync(join(root, part), join(dir, part), { recursive: true });
  return dir;
}

describe('the module map holds in this repository', () => {
  it('no module reaches another module’s internals or tables, every module has an index.ts, dev code loads lazily', () => {
    expect(checkArchitecture(root)).toEqual([]);
  });
});

describe('the checker itself (fixtures)', () => {
  it('reads static, re-export, side-effect, dynamic and type-only imports', () => {
    const refs = importsOf(`
      import { a } from './a.ts';
      import type { B } from './b.ts';
      import { type C, type D } from './c.ts';
      export { e } from './e.ts';
      import './f.ts';
      const g = await import('./g.ts');
      type H = import('./h.ts').H;
      // import { x } from './commented.ts';
    `);
    expect(refs).toEqual([
      { specifier: './a.ts', typeOnly: false, dynamic: false },
      { specifier: './b.ts', typeOnly: true, dynamic: false },
      { specifier: './c.ts', typeOnly: true, dynamic: false },
      { specifier: './e.ts', typeOnly: false, dynamic: false },
      { specifier: './f.ts', typeOnly: false, dynamic: false },
      { specifier: './g.ts', typeOnly: false, dynamic: true },
      { specifier: './h.ts', typeOnly: true, dynamic: true },
    ]);
  });

  it('finds the tables named in SQL strings, not in code or comments', () => {
    const tables = tablesNamedBy(`
      // select * from commented
      await em.execute('select id from sales s join "users" u on u.id = s.user_id where x = ?', []);
      await em.execute(\`update checkout_sessions set state = 'failed'\`);
      await em.execute("insert into mail_deliveries (id) values (?)");
      import { x } from './not-a-table.ts';
    `);
    expect([...tables].sort()).toEqual(['checkout_sessions', 'mail_deliveries', 'sales', 'users']);
  });

  const good = {
    'src/modules/a/index.ts': "export { hello } from './service.ts';\n",
    'src/modules/a/service.ts': "export const hello = () => em.execute('select 1 from alphas');\n",
    'src/modules/a/entities/alpha.entity.ts': "export const A = defineEntity({ name: 'A', tableName: 'alphas' });\n",
    'src/modules/b/index.ts': "import { hello } from '../a/index.ts';\nexport const b = hello;\n",
    'src/modules/b/entities/beta.entity.ts': "export const B = defineEntity({ name: 'B', tableName: 'betas' });\n",
    'src/app.ts': "import { b } from './modules/b/index.ts';\n",
  };

  it('passes a tree that keeps the rules', () => {
    expect(checkArchitecture(tree(good))).toEqual([]);
  });

  it('fails a planted import of another module’s internals', () => {
    const dir = tree({ ...good, 'src/modules/b/service.ts': "import { hello } from '../a/service.ts';\n" });
    expect(checkArchitecture(dir)).toEqual([
      {
        rule: 'module-internals',
        file: 'src/modules/b/service.ts',
        detail: 'src/modules/b/service.ts → ../a/service.ts: import another module only through its index.ts',
      },
    ]);
  });

  it('fails SQL that names another module’s table, a module without index.ts, and layering breaks', () => {
    const dir = tree({
      ...good,
      'src/modules/b/service.ts': "export const x = () => em.execute('update alphas set n = 1');\n",
      'src/modules/c/service.ts': 'export const c = 1;\n',
      'src/http/context.ts': "import { b } from '../modules/b/index.ts';\nimport type { B } from '../modules/b/index.ts';\n",
      'src/modules/a/uses-host.ts': "import { createApp } from '../../app.ts';\n",
      'src/host/boot.ts': "import { emulator } from '../dev/emulator.ts';\nconst lazy = () => import('../dev/emulator.ts');\n",
      'src/dev/emulator.ts': 'export const emulator = 1;\n',
    });
    const found = checkArchitecture(dir).map((v) => `${v.rule} ${v.file}`);
    expect(found.sort()).toEqual(
      [
        'foreign-table src/modules/b/service.ts',
        'module-index src/modules/c',
        'layering src/http/context.ts',
        'layering src/modules/a/uses-host.ts',
        'dev-only src/host/boot.ts',
      ].sort(),
    );
  });

  it('fails this repository with one bad import planted in it', () => {
    const dir = copyOfRepository();
    writeFileSync(
      join(dir, 'src/modules/sales/planted.ts'),
      "import { hashPassword } from '../accounts/password.ts';\nexport const planted = hashPassword;\n",
    );
    expect(checkArchitecture(dir)).toEqual([
      {
        rule: 'module-internals',
        file: 'src/modules/sales/planted.ts',
        detail: 'src/modules/sales/planted.ts → ../accounts/password.ts: import another module only through its index.ts',
      },
    ]);
  });
});
