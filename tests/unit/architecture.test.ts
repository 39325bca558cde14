import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkArchitecture, cyclesIn, importsOf, tablesNamedBy } from '../support/architecture.ts';

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

/** A copy of this repository's src/, workers/, tests/, scripts/ and web/src/ (no node_modules), to plant violations in. */
function copyOfRepository(): string {
  const dir = mkdtempSync(join(tmpdir(), 'arch-repo-'));
  temps.push(dir);
  for (const part of ['src', 'workers', 'tests', 'scripts', 'web/src']) {
    cpSync(join(root, part), join(dir, part), { recursive: true });
  }
  return dir;
}

const rulesOf = (dir: string) => checkArchitecture(dir).map((v) => `${v.rule} ${v.file}`);

describe('the module map holds in this repository', () => {
  it('no cycle, no module reaching another’s internals or tables, no computed import, features apart from the app', () => {
    expect(checkArchitecture(root)).toEqual([]);
  });

  it('has no import cycle at all in src/, workers/ and web/src/, counting type-only imports', () => {
    expect(cyclesIn(root)).toEqual({ runtime: [], all: [] });
  });
});

describe('the checker itself (fixtures)', () => {
  it('reads static, re-export, side-effect, dynamic and type-only imports with a TypeScript parser', () => {
    const refs = importsOf(`
      import { a } from './a.ts';
      import type { B } from './b.ts';
      import { type C, type D } from './c.ts';
      export { e } from './e.ts';
      export type { E } from './e-types.ts';
      export * from './e-all.ts';
      import './f.ts';
      const g = await import('./g.ts');
      const g2 = await import(\`./g2.ts\`);
      const g3 = await import(\`./modules/\${name}.ts\`);
      const g4 = await import(path);
      type H = import('./h.ts').H;
      let i: typeof import('./i.ts');
      // import { x } from './commented.ts';
      const text = "import { y } from './in-a-string.ts'";
    `);
    expect(refs).toEqual([
      { specifier: './a.ts', typeOnly: false, dynamic: false },
      { specifier: './b.ts', typeOnly: true, dynamic: false },
      // verbatimModuleSyntax (and Node's type stripping) keep \`import {} from './c.ts'\`: it loads c.ts.
      { specifier: './c.ts', typeOnly: false, dynamic: false },
      { specifier: './e.ts', typeOnly: false, dynamic: false },
      { specifier: './e-types.ts', typeOnly: true, dynamic: false },
      { specifier: './e-all.ts', typeOnly: false, dynamic: false },
      { specifier: './f.ts', typeOnly: false, dynamic: false },
      { specifier: './g.ts', typeOnly: false, dynamic: true },
      { specifier: './g2.ts', typeOnly: false, dynamic: true },
      { specifier: null, typeOnly: false, dynamic: true },
      { specifier: null, typeOnly: false, dynamic: true },
      { specifier: './h.ts', typeOnly: true, dynamic: true },
      { specifier: './i.ts', typeOnly: true, dynamic: true },
    ]);
  });

  it('finds the tables named in SQL strings, not in code or comments', () => {
    const tables = tablesNamedBy(`
      // select * from commented
      await em.execute('select id from sales s join "users" u on u.id = s.user_id where x = ?', []);
      await em.execute(\`update checkout_sessions set state = 'failed'\`);
      await em.execute("insert into mail_deliveries (id) values (?)");
      import { x } from './not-a-table.ts';
      await db(em).selectFrom('licenses as l').innerJoin('license_pictures as p', 'p.license_id', 'l.id').execute();
      await db(em).updateTable('outbox_events').set({ handled_at: null }).execute();
      await db(em).insertInto("known_devices").values(row).execute();
      await db(em).deleteFrom(\`exports\`).execute();
    `);
    expect([...tables].sort()).toEqual([
      'checkout_sessions',
      'exports',
      'known_devices',
      'license_pictures',
      'licenses',
      'mail_deliveries',
      'outbox_events',
      'sales',
      'users',
    ]);
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
        // Not even a type: the platform declares the port it needs.
        'layering src/http/context.ts',
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

  it('fails a run-time cycle and a type-only cycle, and names the files of each', () => {
    const dir = tree({
      ...good,
      'src/modules/a/one.ts': "import { two } from './two.ts';\nexport const one = () => two;\n",
      'src/modules/a/two.ts': "import { one } from './one.ts';\nexport const two = () => one;\n",
      'src/lib/left.ts': "import type { Right } from './right.ts';\nexport interface Left { right: Right }\n",
      'src/lib/right.ts': "import type { Left } from './left.ts';\nexport interface Right { left?: Left }\n",
      'workers/self.ts': "export type Me = import('./self.ts').Me | string;\n",
    });
    expect(checkArchitecture(dir)).toEqual([
      {
        rule: 'cycle',
        file: 'src/modules/a/one.ts',
        detail: 'run-time import cycle among 2 files, e.g. src/modules/a/one.ts → src/modules/a/two.ts → src/modules/a/one.ts',
      },
      {
        rule: 'cycle',
        file: 'src/lib/left.ts',
        detail: 'type import cycle among 2 files, e.g. src/lib/left.ts → src/lib/right.ts → src/lib/left.ts',
      },
      {
        rule: 'cycle',
        file: 'workers/self.ts',
        detail: 'type import cycle among 1 files, e.g. workers/self.ts → workers/self.ts',
      },
    ]);
  });

  it('fails a cycle that goes through an import(), and a long one through several modules', () => {
    const dir = tree({
      ...good,
      'src/modules/a/index.ts': "export { hello } from './service.ts';\nexport const later = () => import('./late.ts');\n",
      'src/modules/a/late.ts': "import { hello } from './index.ts';\nexport const late = hello;\n",
      'src/modules/b/service.ts': "import { c } from '../c/index.ts';\nexport const b2 = c;\n",
      'src/modules/c/index.ts': "import type { B } from '../b/index.ts';\nexport const c = 1;\nexport type C = B;\n",
      'src/modules/b/index.ts':
        "import { hello } from '../a/index.ts';\nexport { b2 } from './service.ts';\nexport type B = 1;\nexport const b = hello;\n",
    });
    const cycles = checkArchitecture(dir).filter((v) => v.rule === 'cycle');
    expect(cycles.map((v) => v.detail.split(',')[0])).toEqual([
      'run-time import cycle among 2 files',
      'type import cycle among 3 files',
    ]);
  });

  it('fails a computed import() (a template literal with placeholders, a variable), not a literal one', () => {
    const dir = tree({
      ...good,
      'src/host/plugins.ts':
        `export const load = (name: string) => import(\`../modules/\${name}/index.ts\`);\n` +
        'export const also = (p: string) => import(p);\n' +
        'export const fine = () => import(`../modules/a/index.ts`);\n',
    });
    expect(rulesOf(dir)).toEqual(['computed-import src/host/plugins.ts', 'computed-import src/host/plugins.ts']);
  });

  it('fails a dynamic import of another module’s internals, and one of dev code from a module', () => {
    const dir = tree({
      ...good,
      'src/modules/b/lazy.ts': "export const lazy = () => import('../a/service.ts');\n",
      'src/modules/a/dev.ts': "export const dev = () => import('../../dev/emulator.ts');\n",
      'src/dev/emulator.ts': 'export const emulator = 1;\n',
    });
    expect(rulesOf(dir).sort()).toEqual(['layering src/modules/a/dev.ts', 'module-internals src/modules/b/lazy.ts']);
  });

  const spa = {
    'web/src/app/router.tsx': "import { Page } from '../features/one/routes/page';\nimport { homeOf } from '../lib/home';\n",
    'web/src/app/guards.ts': 'export const guard = 1;\n',
    'web/src/lib/home.ts': 'export const homeOf = () => "/";\n',
    'web/src/components/button.tsx': 'export const Button = () => null;\n',
    'web/src/features/one/routes/page.tsx':
      "import { Button } from '../../../components/button';\nimport { homeOf } from '../../../lib/home';\nimport { shared } from '../../two';\nexport const Page = () => [Button, homeOf, shared];\n",
    'web/src/features/two/index.ts': "export { shared } from './shared';\n",
    'web/src/features/two/shared.ts': 'export const shared = 2;\n',
  };

  it('passes an SPA whose features use lib, components and another feature’s index', () => {
    expect(checkArchitecture(tree({ ...good, ...spa }))).toEqual([]);
  });

  it('fails a feature importing the app or another feature’s internals, and lib importing a feature', () => {
    const dir = tree({
      ...good,
      ...spa,
      'web/src/features/one/routes/bad.tsx':
        "import { guard } from '../../../app/guards';\nimport { shared } from '../../two/shared';\nexport const bad = [guard, shared];\n",
      'web/src/lib/bad.ts': "import { shared } from '../features/two';\nexport const bad = shared;\n",
    });
    expect(rulesOf(dir).sort()).toEqual([
      'web-features web/src/features/one/routes/bad.tsx',
      'web-features web/src/features/one/routes/bad.tsx',
      'web-features web/src/lib/bad.ts',
    ]);
  });

  it('fails this repository with a run-time cycle and a type-only cycle planted in it', () => {
    const dir = copyOfRepository();
    writeFileSync(
      join(dir, 'src/modules/sales/planted-a.ts'),
      "import { b } from './planted-b.ts';\nexport const a = () => b;\n",
    );
    writeFileSync(
      join(dir, 'src/modules/sales/planted-b.ts'),
      "import { a } from './planted-a.ts';\nexport const b = () => a;\n",
    );
    // A type-only loop through a module's index and the platform, as the contexts once had.
    writeFileSync(
      join(dir, 'src/jobs/planted.ts'),
      "import type { SalePayment } from '../modules/sales/index.ts';\nexport type Planted = SalePayment;\n",
    );
    writeFileSync(
      join(dir, 'src/modules/sales/planted-type.ts'),
      "import type { Planted } from '../../jobs/planted.ts';\nexport type Again = Planted;\n",
    );
    const index = join(dir, 'src/modules/sales/index.ts');
    writeFileSync(index, `${readFileSync(index, 'utf8')}export type { Again } from './planted-type.ts';\n`);
    const found = checkArchitecture(dir).map((v) => `${v.rule} ${v.file} ${v.rule === 'cycle' ? v.detail.split(',')[0] : ''}`);
    expect(found.sort()).toEqual([
      'cycle src/jobs/planted.ts type import cycle among 3 files',
      'cycle src/modules/sales/planted-a.ts run-time import cycle among 2 files',
      'layering src/jobs/planted.ts ',
    ]);
  });
});
