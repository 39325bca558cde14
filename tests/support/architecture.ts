import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The module map as rules read from the source tree (docs/decisions/0012-module-boundaries.md):
 *
 * - every folder under src/modules is a module and has an index.ts, its whole public surface;
 * - a file outside a module (another module, the host, workers, CLI, tests) imports only its index.ts;
 * - the platform layer (src/lib, config, db, http, events, jobs) imports no module, host or dev code
 *   at run time (type-only imports of a module's index.ts are erased and allowed);
 * - modules never import the host (src/app.ts, src/main.ts, src/host, workers) nor src/dev;
 * - src/dev (the Stripe emulator, the private redis-server, demo seeding) is imported at run time
 *   only with a dynamic import(), so a production start never loads it;
 * - the SQL in a module's files names only tables that module owns (its entities' tableName);
 *   platform files name only the platform's own tables.
 */
export interface Violation {
  rule: 'module-index' | 'module-internals' | 'layering' | 'dev-only' | 'foreign-table';
  file: string;
  detail: string;
}

const PLATFORM_DIRS = ['lib', 'config', 'db', 'http', 'events', 'jobs'];
const SCANNED_ROOTS = ['src', 'workers', 'tests', 'scripts'];

function walk(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (/\.(ts|tsx|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

interface ImportRef {
  specifier: string;
  typeOnly: boolean;
  dynamic: boolean;
}

/** Comments out of the way (keeps string contents, which is where SQL and specifiers live). */
function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/[^\n]*/g, '$1');
}

export function importsOf(source: string): ImportRef[] {
  const code = stripComments(source);
  const refs: ImportRef[] = [];
  const statement = /(^|[\n;])\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/g;
  for (const m of code.matchAll(statement)) {
    const clause = m[4] ?? '';
    // `import { type A, type B } from` is type-only too.
    const allTypes =
      /^\{[^}]*\}$/.test(clause.trim()) &&
      clause
        .replace(/[{}\s]/g, '')
        .split(',')
        .filter(Boolean)
        .every((n) => n.startsWith('type'));
    refs.push({ specifier: m[5] as string, typeOnly: Boolean(m[3]) || allTypes, dynamic: false });
  }
  for (const m of code.matchAll(/(^|[\n;])\s*import\s*['"]([^'"]+)['"]/g)) {
    refs.push({ specifier: m[2] as string, typeOnly: false, dynamic: false });
  }
  for (const m of code.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    // `type X = import('…').Y` is a type; a call is a dynamic import.
    const before = code.slice(Math.max(0, (m.index ?? 0) - 40), m.index ?? 0);
    refs.push({ specifier: m[1] as string, typeOnly: /(type\s+\w+\s*=|:)\s*$/.test(before), dynamic: true });
  }
  return refs;
}

/** Table names a file's SQL mentions (FROM, JOIN, UPDATE, INTO, TABLE, REFERENCES). */
export function tablesNamedBy(source: string): Set<string> {
  const code = stripComments(source);
  const names = new Set<string>();
  const strings = code.match(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g) ?? [];
  for (const text of strings) {
    for (const m of text.matchAll(/\b(?:from|join|update|into|table|references)\s+(?:only\s+)?"?([a-z_][a-z0-9_]*)"?/gi)) {
      names.add((m[1] as string).toLowerCase());
    }
  }
  return names;
}

function tablesDeclaredIn(files: string[]): Set<string> {
  const tables = new Set<string>();
  for (const file of files) {
    for (const m of readFileSync(file, 'utf8').matchAll(/tableName:\s*['"]([a-z_][a-z0-9_]*)['"]/g)) tables.add(m[1] as string);
  }
  return tables;
}

export function checkArchitecture(root: string): Violation[] {
  const violations: Violation[] = [];
  const rel = (path: string) => relative(root, path).split(sep).join('/');
  const modulesDir = join(root, 'src', 'modules');
  const modules = existsSync(modulesDir)
    ? readdirSync(modulesDir).filter((name) => statSync(join(modulesDir, name)).isDirectory())
    : [];
  const files = SCANNED_ROOTS.flatMap((dir) => walk(join(root, dir)));

  const moduleOf = (path: string): string | undefined => {
    const r = rel(path);
    return r.startsWith('src/modules/') ? r.split('/')[2] : undefined;
  };
  const isPlatform = (path: string) => PLATFORM_DIRS.some((d) => rel(path).startsWith(`src/${d}/`));
  const isHost = (path: string) => {
    const r = rel(path);
    return r === 'src/app.ts' || r === 'src/main.ts' || r.startsWith('src/host/') || r.startsWith('workers/');
  };
  const isDev = (path: string) => rel(path).startsWith('src/dev/');
  const isTest = (path: string) => rel(path).startsWith('tests/');

  // Who owns which table.
  const owner = new Map<string, string>();
  for (const module of modules) {
    if (!existsSync(join(modulesDir, module, 'index.ts'))) {
      violations.push({
        rule: 'module-index',
        file: `src/modules/${module}`,
        detail: 'module without index.ts (its public surface)',
      });
    }
    for (const table of tablesDeclaredIn(walk(join(modulesDir, module)))) owner.set(table, module);
  }
  const platformTables = tablesDeclaredIn(files.filter(isPlatform));
  for (const table of platformTables) owner.set(table, 'platform');

  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    const from = moduleOf(file);
    for (const ref of importsOf(source)) {
      if (!ref.specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), ref.specifier);
      const to = moduleOf(target);
      const where = `${rel(file)} → ${ref.specifier}`;
      if (to && to !== from && rel(target) !== `src/modules/${to}/index.ts`) {
        violations.push({
          rule: 'module-internals',
          file: rel(file),
          detail: `${where}: import another module only through its index.ts`,
        });
      }
      if (ref.typeOnly) continue;
      if (isPlatform(file) && (to || isHost(target) || isDev(target))) {
        violations.push({
          rule: 'layering',
          file: rel(file),
          detail: `${where}: the platform layer must not import modules, the host or dev code`,
        });
      }
      if (from && (isHost(target) || isDev(target))) {
        violations.push({ rule: 'layering', file: rel(file), detail: `${where}: a module must not import the host or dev code` });
      }
      if (isDev(target) && !isDev(file) && !isTest(file) && !ref.dynamic) {
        violations.push({
          rule: 'dev-only',
          file: rel(file),
          detail: `${where}: load dev-only code with import() where it is used`,
        });
      }
    }
    if (from || isPlatform(file)) {
      const mine = from ?? 'platform';
      for (const table of tablesNamedBy(source)) {
        const theirs = owner.get(table);
        if (theirs && theirs !== mine) {
          violations.push({ rule: 'foreign-table', file: rel(file), detail: `SQL names "${table}", a table of ${theirs}` });
        }
      }
    }
  }
  return violations;
}
