import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkArchitecture, hiddenImports, SCANNED_ROOTS, tablesNamedBy } from '../support/architecture.ts';

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
  for (const part of SCANNED_ROOTS) cpSync(join(root, part), join(dir, part), { recursive: true });
  return dir;
}

/** This repository, cruised once for the tests that read it. */
let cruised: ReturnType<typeof checkArchitecture> | undefined;
const thisRepository = () => {
  cruised ??= checkArchitecture(root);
  return cruised;
};

const violationsOf = async (dir: string) => (await checkArchitecture(dir)).violations;
const rulesOf = async (dir: string) => (await violationsOf(dir)).map((v) => `${v.rule} ${v.file}`).sort();

describe('the module map holds in this repository', () => {
  it('dependency-cruiser reads every TypeScript file of src/, workers/, web/src/, tests/ and scripts/', async () => {
    const onDisk = SCANNED_ROOTS.flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => /\.(ts|tsx)$/.test(f) && !/\.d\.ts$/.test(f) && !f.split('/').includes('node_modules'))
        .map((f) => `${dir}/${f}`),
    );
    const { files, imports, typeOnlyImports } = await thisRepository();
    expect(files.sort()).toEqual(onDisk.sort());
    // swc sees the type-only imports (the contexts' old type cycles ran through them).
    expect(imports).toBeGreaterThan(files.length);
    expect(typeOnlyImports).toBeGreaterThan(100);
  });

  it('no cycle, no module reaching another’s internals or tables, no computed import, features apart from the app', async () => {
    const { violations, cycles } = await thisRepository();
    expect(violations).toEqual([]);
    expect(cycles).toEqual([]);
  });
});

describe('what dependency-cruiser cannot see, read with a parser', () => {
  it('finds import() with a computed specifier and import(…) types of the project’s files', () => {
    const found = hiddenImports(`
      import { a } from './a.ts';
      const g = await import('./g.ts');
      const g2 = await import(\`./g2.ts\`);
      const g3 = await import(\`./modules/\${name}.ts\`);
      const g4 = await import(path);
      type H = import('./h.ts').H;
      let i: typeof import('../i.ts');
      let s: import('node:http').Server;
      // import(commented);
      const text = "import(inAString)";
    `);
    expect(found).toEqual({ computed: 2, importTypes: ['./h.ts', '../i.ts'] });
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
});

describe('the rules fail planted violations (fixtures)', () => {
  const good = {
    'src/modules/a/index.ts': "export { hello } from './service.ts';\n",
    'src/modules/a/service.ts': "export const hello = () => em.execute('select 1 from alphas');\n",
    'src/modules/a/entities/alpha.entity.ts': "export const A = defineEntity({ name: 'A', tableName: 'alphas' });\n",
    'src/modules/b/index.ts': "import { hello } from '../a/index.ts';\nexport const b = hello;\n",
    'src/modules/b/entities/beta.entity.ts': "export const B = defineEntity({ name: 'B', tableName: 'betas' });\n",
    'src/app.ts': "import { b } from './modules/b/index.ts';\nexport const lazy = () => import('./dev/emulator.ts');\n",
    'src/dev/emulator.ts': 'export const emulator = 1;\n',
    'tests/a.test.ts': "import { hello } from '../src/modules/a/index.ts';\nimport { emulator } from '../src/dev/emulator.ts';\n",
  };

  it('passes a tree that keeps the rules', async () => {
    expect(await violationsOf(tree(good))).toEqual([]);
  });

  it('fails a planted import of another module’s internals, from a module and from a test', async () => {
    const dir = tree({
      ...good,
      'src/modules/b/service.ts': "import { hello } from '../a/service.ts';\nexport const x = hello;\n",
      'tests/b.test.ts': "import { hello } from '../src/modules/a/service.ts';\n",
    });
    const found = await violationsOf(dir);
    expect(found.map((v) => `${v.rule} ${v.file}`).sort()).toEqual([
      'module-internals src/modules/b/service.ts',
      'module-internals-from-outside tests/b.test.ts',
    ]);
    expect(found.find((v) => v.file === 'src/modules/b/service.ts')?.detail).toBe(
      'src/modules/b/service.ts → src/modules/a/service.ts (import): ' +
        'A module imports another module only through its index.ts (its whole public surface).',
    );
  });

  it('fails the platform importing a module (even a type) or the host, a module importing the host, static dev imports', async () => {
    const dir = tree({
      ...good,
      'src/http/context.ts': "import { b } from '../modules/b/index.ts';\nexport const c = b;\n",
      'src/jobs/context.ts': "import type { B } from '../modules/b/index.ts';\nexport type J = B;\n",
      'src/db/boot.ts': "import { b } from '../app.ts';\nexport const d = b;\n",
      'src/modules/a/uses-host.ts': "import { createApp } from '../../app.ts';\nexport const u = createApp;\n",
      'src/modules/a/uses-worker.ts': "export const w = () => import('../../../workers/index.ts');\n",
      'workers/index.ts': 'export const worker = 1;\n',
      'src/host/boot.ts': "import { emulator } from '../dev/emulator.ts';\nexport const e = emulator;\n",
      'src/modules/a/dev.ts': "export const dev = () => import('../../dev/emulator.ts');\n",
      'src/lib/test-helper.ts': "import { hello } from '../../tests/a.test.ts';\nexport const h = hello;\n",
    });
    expect(await rulesOf(dir)).toEqual([
      'dev-only src/host/boot.ts',
      'module-layering src/modules/a/dev.ts',
      'module-layering src/modules/a/uses-host.ts',
      'module-layering src/modules/a/uses-worker.ts',
      'platform-layering src/db/boot.ts',
      'platform-layering src/http/context.ts',
      'platform-layering src/jobs/context.ts',
      'shipped-code-layering src/lib/test-helper.ts',
    ]);
  });

  it('fails stripe imported (even a type) outside the checkout module and src/dev', async () => {
    const dir = tree({
      ...good,
      'src/modules/checkout/index.ts': "import Stripe from 'stripe';\nexport const s = Stripe;\n",
      'src/dev/stripe.ts': "import Stripe from 'stripe';\nexport const s = Stripe;\n",
      'src/modules/b/refund.ts': "import Stripe from 'stripe';\nexport const r = Stripe;\n",
      'src/jobs/context.ts': "import type Stripe from 'stripe';\nexport type J = Stripe;\n",
      'workers/index.ts': "import type Stripe from 'stripe';\nexport type W = Stripe;\n",
    });
    expect(await rulesOf(dir)).toEqual([
      'stripe-in-checkout src/jobs/context.ts',
      'stripe-in-checkout src/modules/b/refund.ts',
      'stripe-in-checkout workers/index.ts',
    ]);
  });

  it('fails SQL that names another module’s table, a module without index.ts, and a relative import of nothing', async () => {
    const dir = tree({
      ...good,
      'src/modules/b/service.ts': "export const x = () => em.execute('update alphas set n = 1');\n",
      'src/modules/c/service.ts': "import { gone } from './gone.ts';\nexport const c = gone;\n",
    });
    expect(await rulesOf(dir)).toEqual([
      'foreign-table src/modules/b/service.ts',
      'module-index src/modules/c',
      'not-to-unresolvable src/modules/c/service.ts',
    ]);
  });

  it('fails a run-time cycle, a type-only cycle and a self-import, and tells them apart', async () => {
    const dir = tree({
      ...good,
      'src/modules/a/one.ts': "import { two } from './two.ts';\nexport const one = () => two;\n",
      'src/modules/a/two.ts': "import { one } from './one.ts';\nexport const two = () => one;\n",
      'src/lib/left.ts': "import type { Right } from './right.ts';\nexport interface Left { right: Right }\n",
      'src/lib/right.ts': "export type { Left } from './left.ts';\nexport interface Right { n: number }\n",
      'workers/self.ts': "import type { Me } from './self.ts';\nexport type Them = Me[];\nexport type Me = string;\n",
    });
    const { violations, cycles } = await checkArchitecture(dir);
    expect(cycles.map((c) => `${c.kind}: ${[...new Set(c.loop)].sort().join(' ')}`).sort()).toEqual([
      'run-time: src/modules/a/one.ts src/modules/a/two.ts',
      'type: src/lib/left.ts src/lib/right.ts',
      'type: workers/self.ts',
    ]);
    expect(violations.map((v) => v.detail).sort()).toEqual([
      'run-time import cycle among 2 files: src/modules/a/one.ts → src/modules/a/two.ts → src/modules/a/one.ts',
      'type import cycle among 1 files: workers/self.ts → workers/self.ts',
      'type import cycle among 2 files: src/lib/left.ts → src/lib/right.ts → src/lib/left.ts',
    ]);
  });

  it('fails a cycle that goes through an import(), and a long type cycle through several modules', async () => {
    const dir = tree({
      ...good,
      'src/modules/a/index.ts': "export { hello } from './service.ts';\nexport const later = () => import('./late.ts');\n",
      'src/modules/a/late.ts': "import { hello } from './index.ts';\nexport const late = hello;\n",
      'src/modules/b/service.ts': "import { c } from '../c/index.ts';\nexport const b2 = c;\n",
      'src/modules/c/index.ts': "import type { B } from '../b/index.ts';\nexport const c = 1;\nexport type C = B;\n",
      'src/modules/b/index.ts':
        "import { hello } from '../a/index.ts';\nexport { b2 } from './service.ts';\nexport type B = 1;\nexport const b = hello;\n",
    });
    const { cycles } = await checkArchitecture(dir);
    expect(cycles.map((c) => `${c.kind} ${new Set(c.loop).size}`).sort()).toEqual(['run-time 2', 'type 3']);
  });

  it('fails a computed import() (a template literal with placeholders, a variable) and an import(…) type, not literal ones', async () => {
    const dir = tree({
      ...good,
      'src/host/plugins.ts':
        `export const load = (name: string) => import(\`../modules/\${name}/index.ts\`);\n` +
        'export const also = (p: string) => import(p);\n' +
        'export const fine = () => import(`../modules/a/index.ts`);\n' +
        "export type Hello = typeof import('../modules/a/index.ts').hello;\n",
    });
    expect(await rulesOf(dir)).toEqual([
      'computed-import src/host/plugins.ts',
      'computed-import src/host/plugins.ts',
      'import-type-expression src/host/plugins.ts',
    ]);
  });

  it('fails a dynamic import of another module’s internals', async () => {
    const dir = tree({ ...good, 'src/modules/b/lazy.ts': "export const lazy = () => import('../a/service.ts');\n" });
    expect(await rulesOf(dir)).toEqual(['module-internals src/modules/b/lazy.ts']);
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

  it('passes an SPA whose features use lib, components and another feature’s index', async () => {
    expect(await violationsOf(tree({ ...good, ...spa }))).toEqual([]);
  });

  it('fails a feature importing the app or another feature’s internals, and lib or components importing a feature or the app', async () => {
    const dir = tree({
      ...good,
      ...spa,
      'web/src/features/one/routes/bad.tsx':
        "import { guard } from '../../../app/guards';\nimport { shared } from '../../two/shared';\nexport const bad = [guard, shared];\n",
      'web/src/lib/bad.ts': "import { shared } from '../features/two';\nexport const bad = shared;\n",
      'web/src/components/bad.tsx': "import { guard } from '../app/guards';\nexport const bad = guard;\n",
    });
    expect(await rulesOf(dir)).toEqual([
      'web-features-app web/src/components/bad.tsx',
      'web-features-app web/src/features/one/routes/bad.tsx',
      'web-features-internals web/src/features/one/routes/bad.tsx',
      'web-shared-no-features web/src/lib/bad.ts',
    ]);
  });
});

describe('the rules fail this repository with violations planted in a copy of it', () => {
  it('a bad import, a run-time cycle and a type-only cycle', async () => {
    const dir = copyOfRepository();
    const before = await thisRepository();
    writeFileSync(
      join(dir, 'src/modules/sales/planted.ts'),
      "import { hashPassword } from '../accounts/password.ts';\nexport const planted = hashPassword;\n",
    );
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

    const { violations, cycles, files } = await checkArchitecture(dir);
    // The copy is this repository (no violation, no cycle) and five files more.
    expect(before.violations).toEqual([]);
    expect(before.cycles).toEqual([]);
    expect(files.length).toBe(before.files.length + 5);
    expect(cycles.map((c) => `${c.kind} ${[...new Set(c.loop)].sort().join(' ')}`).sort()).toEqual([
      'run-time src/modules/sales/planted-a.ts src/modules/sales/planted-b.ts',
      'type src/jobs/planted.ts src/modules/sales/index.ts src/modules/sales/planted-type.ts',
    ]);
    expect(
      violations
        .filter((v) => v.rule !== 'no-circular')
        .map((v) => `${v.rule} ${v.file}`)
        .sort(),
    ).toEqual(['module-internals src/modules/sales/planted.ts', 'platform-layering src/jobs/planted.ts']);
  });
});
