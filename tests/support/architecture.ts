import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parseSync } from 'vite';

/**
 * The module map as rules read from the source tree (docs/decisions/0012-module-boundaries.md):
 *
 * - every folder under src/modules is a module and has an index.ts, its whole public surface;
 * - a file outside a module (another module, the host, workers, CLI, tests) imports only its index.ts,
 *   statically or with import();
 * - the platform layer (src/lib, config, db, http, events, jobs, storage) imports no module, host or
 *   dev code, not even a type: what it needs from a module it declares as a port it owns;
 * - modules never import the host (src/app.ts, src/main.ts, src/host, workers) nor src/dev;
 * - src/dev (the Stripe emulator, the private redis-server, demo seeding) is imported at run time
 *   only with a dynamic import(), so a production start never loads it;
 * - an import() names its file in a string: a computed specifier (a template literal with
 *   placeholders, a variable) is invisible to these rules, to the type checker and to the bundler;
 * - no file of src/, workers/ or web/src/ depends on itself through other files: no cycle of
 *   run-time imports, and none of type-only imports either (`import type`, `import('…').T`);
 * - in the SPA, web/src/features/<f> imports web/src/lib, web/src/components and its own files, another
 *   feature only through that feature's index.ts(x), never web/src/app (the app composes features);
 *   lib and components import neither features nor app;
 * - the SQL in a module's files names only tables that module owns (its entities' tableName);
 *   platform files name only the platform's own tables.
 *
 * Imports are read by a TypeScript parser (oxc, the one Vite 8 ships as `parseSync`): dependency-cruiser
 * cannot read .ts files next to TypeScript 7, which has no JavaScript compiler API (decision 0012).
 */
export interface Violation {
  rule:
    | 'module-index'
    | 'module-internals'
    | 'layering'
    | 'dev-only'
    | 'computed-import'
    | 'cycle'
    | 'web-features'
    | 'foreign-table'
    | 'parse';
  file: string;
  detail: string;
}

const PLATFORM_DIRS = ['lib', 'config', 'db', 'http', 'events', 'jobs', 'storage'];
const SCANNED_ROOTS = ['src', 'workers', 'tests', 'scripts', 'web/src'];
/** Where a cycle is a fault: the shipped code (tests and scripts only ever import it). */
const CYCLE_ROOTS = ['src/', 'workers/', 'web/src/'];
const SOURCE = /\.(ts|tsx|mts|cts)$/;

function walk(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (SOURCE.test(name) && !/\.d\.[cm]?ts$/.test(name)) out.push(path);
  }
  return out;
}

export interface ImportRef {
  /** The specifier as written; null when it is computed (`import(\`./${name}.ts\`)`, `import(path)`). */
  specifier: string | null;
  /** Erased by the compiler: `import type`, `export type … from`, `import('…').T` in a type. */
  typeOnly: boolean;
  /** An `import()` expression. */
  dynamic: boolean;
}

interface Node {
  type: string;
  [key: string]: unknown;
}

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';

/** A specifier written as a string: a literal, or a template literal without placeholders. */
function literal(node: unknown): string | null {
  if (!isNode(node)) return null;
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral' && (node.expressions as unknown[]).length === 0) {
    const [quasi] = node.quasis as { value: { cooked: string } }[];
    return quasi?.value.cooked ?? null;
  }
  if (node.type === 'TSLiteralType') return literal(node.literal);
  return null;
}

export class ParseError extends Error {}

/**
 * Every import of a file: static imports and re-exports, side-effect imports, import() calls and
 * import('…') types. `import { type A }` is not type-only: with verbatimModuleSyntax (and Node's type
 * stripping) it stays `import {} from '…'`, which loads the file.
 */
export function importsOf(source: string, filename = 'file.ts'): ImportRef[] {
  const parsed = parseSync(filename, source);
  if (parsed.errors.length) throw new ParseError(parsed.errors.map((e) => e.message).join('; '));
  const refs: ImportRef[] = [];
  const program = parsed.program as unknown as { body: Node[] };
  // Declarations stand at the top level only.
  for (const node of program.body) {
    if (node.type === 'ImportDeclaration') {
      refs.push({ specifier: literal(node.source), typeOnly: node.importKind === 'type', dynamic: false });
    } else if ((node.type === 'ExportNamedDeclaration' || node.type === 'ExportAllDeclaration') && node.source) {
      refs.push({ specifier: literal(node.source), typeOnly: node.exportKind === 'type', dynamic: false });
    }
  }
  // import() calls and import('…') types may stand anywhere: the whole tree, where the text has one.
  if (!/\bimport\s*\(/.test(source)) return refs;
  const visit = (node: Node) => {
    if (node.type === 'ImportExpression') refs.push({ specifier: literal(node.source), typeOnly: false, dynamic: true });
    if (node.type === 'TSImportType')
      refs.push({ specifier: literal(node.source ?? node.argument), typeOnly: true, dynamic: true });
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) for (const item of value) isNode(item) && visit(item);
      else if (isNode(value)) visit(value);
    }
  };
  for (const node of program.body) visit(node);
  return refs;
}

/** Comments out of the way (keeps string contents, which is where SQL lives). */
function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/[^\n]*/g, '$1');
}

/** The Kysely calls that name a table (`selectFrom('sales as s')`, `innerJoin('users as u', …)`, …). */
const KYSELY_TABLE =
  /\.(?:selectFrom|insertInto|updateTable|deleteFrom|mergeInto|replaceInto|innerJoin|leftJoin|rightJoin|fullJoin|innerJoinLateral|leftJoinLateral|crossJoin|crossJoinLateral|using)\(\s*['"`]([a-z_][a-z0-9_]*)(?:\s+as\s+\w+)?['"`]/g;

/** Table names a file's SQL mentions (FROM, JOIN, UPDATE, INTO, TABLE, REFERENCES) and its Kysely queries name. */
export function tablesNamedBy(source: string): Set<string> {
  const code = stripComments(source);
  const names = new Set<string>();
  for (const m of code.matchAll(KYSELY_TABLE)) names.add((m[1] as string).toLowerCase());
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

/** One import, resolved: `to` is the file it names (relative to the root), null for a package. */
export interface Edge {
  from: string;
  to: string | null;
  specifier: string | null;
  typeOnly: boolean;
  dynamic: boolean;
}

/** A relative specifier as a file: as written, or as the bundler finds it (web/ omits extensions). */
function resolveFile(importer: string, specifier: string): string {
  const base = resolve(dirname(importer), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return base;
}

/** Every import of every source file under the scanned roots, resolved. */
export function dependencyGraph(root: string): { files: string[]; edges: Edge[]; parseErrors: Violation[] } {
  const rel = (path: string) => relative(root, path).split(sep).join('/');
  const files = SCANNED_ROOTS.flatMap((dir) => walk(join(root, dir)));
  const edges: Edge[] = [];
  const parseErrors: Violation[] = [];
  for (const file of files) {
    let refs: ImportRef[];
    try {
      refs = importsOf(readFileSync(file, 'utf8'), file);
    } catch (error) {
      parseErrors.push({ rule: 'parse', file: rel(file), detail: (error as Error).message });
      continue;
    }
    for (const ref of refs) {
      const to = ref.specifier?.startsWith('.') ? rel(resolveFile(file, ref.specifier)) : null;
      edges.push({ from: rel(file), to, ...ref });
    }
  }
  return { files: files.map(rel), edges, parseErrors };
}

/** Files that depend on each other (a strongly connected component), and one loop through them to show. */
export interface Cycle {
  files: string[];
  loop: string[];
}

/**
 * The import cycles among `files` (Tarjan's strongly connected components): each component of more
 * than one file, or a file importing itself.
 */
export function cyclesOf(files: readonly string[], edges: readonly Edge[]): Cycle[] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const edge of edges) if (edge.to && next.has(edge.from) && next.has(edge.to)) next.get(edge.from)?.push(edge.to);

  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  // Iterative (a deep import chain must not overflow the call stack).
  for (const start of files) {
    if (index.has(start)) continue;
    const work: [string, number][] = [[start, 0]];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work.at(-1) as [string, number];
      const [node, i] = frame;
      const targets = next.get(node) ?? [];
      if (i < targets.length) {
        frame[1] = i + 1;
        const target = targets[i] as string;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push([target, 0]);
        } else if (onStack.has(target)) {
          low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
        }
        continue;
      }
      work.pop();
      const parent = work.at(-1);
      if (parent) low.set(parent[0], Math.min(low.get(parent[0]) as number, low.get(node) as number));
      if (low.get(node) === index.get(node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== node);
        if (component.length > 1 || targets.includes(node)) components.push(component.sort());
      }
    }
  }
  return components.map((component) => ({ files: component, loop: loopThrough(component, next) }));
}

/** One closed path through a strongly connected component, starting at its first file. */
function loopThrough(component: string[], next: Map<string, string[]>): string[] {
  const members = new Set(component);
  const start = component[0] as string;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift() as string;
    for (const target of next.get(node) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const path = [start];
        for (let at = node; at !== start; at = cameFrom.get(at) as string) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, node);
        queue.push(target);
      }
    }
  }
  return component;
}

export interface CycleReport {
  /** Cycles of imports that load at run time (static, re-export, side effect, import()). */
  runtime: Cycle[];
  /** Every cycle once type-only imports count too. */
  all: Cycle[];
}

/** The cycles of the shipped code (src/, workers/, web/src/), at run time and with types. */
export function cyclesIn(root: string, graph = dependencyGraph(root)): CycleReport {
  const { files, edges } = graph;
  const shipped = files.filter((f) => CYCLE_ROOTS.some((r) => f.startsWith(r)));
  return {
    runtime: cyclesOf(
      shipped,
      edges.filter((e) => !e.typeOnly),
    ),
    all: cyclesOf(shipped, edges),
  };
}

export function checkArchitecture(root: string): Violation[] {
  const modulesDir = join(root, 'src', 'modules');
  const modules = existsSync(modulesDir)
    ? readdirSync(modulesDir).filter((name) => statSync(join(modulesDir, name)).isDirectory())
    : [];
  const graph = dependencyGraph(root);
  const { files, edges, parseErrors } = graph;
  const violations: Violation[] = [...parseErrors];

  const moduleOf = (path: string): string | undefined => (path.startsWith('src/modules/') ? path.split('/')[2] : undefined);
  const isPlatform = (path: string) => PLATFORM_DIRS.some((d) => path.startsWith(`src/${d}/`));
  const isHost = (path: string) =>
    path === 'src/app.ts' || path === 'src/main.ts' || path.startsWith('src/host/') || path.startsWith('workers/');
  const isDev = (path: string) => path.startsWith('src/dev/');
  const isTest = (path: string) => path.startsWith('tests/');
  const featureOf = (path: string) => (path.startsWith('web/src/features/') ? path.split('/')[3] : undefined);
  const isFeatureIndex = (path: string) => /^web\/src\/features\/[^/]+\/index\.tsx?$/.test(path);

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
  for (const table of tablesDeclaredIn(files.filter(isPlatform).map((f) => join(root, f)))) owner.set(table, 'platform');

  for (const edge of edges) {
    const { from: file, to: target } = edge;
    const where = `${file} → ${edge.specifier ?? '(computed)'}`;
    if (edge.specifier === null) {
      violations.push({
        rule: 'computed-import',
        file,
        detail: `${where}: name the file in a string literal (a computed import() bypasses the module map and the bundler)`,
      });
      continue;
    }
    if (!target) continue;
    const from = moduleOf(file);
    const to = moduleOf(target);
    if (to && to !== from && target !== `src/modules/${to}/index.ts`) {
      violations.push({
        rule: 'module-internals',
        file,
        detail: `${where}: import another module only through its index.ts`,
      });
    }
    if (isPlatform(file) && (to || isHost(target) || isDev(target))) {
      violations.push({
        rule: 'layering',
        file,
        detail: `${where}: the platform layer must not import modules, the host or dev code (declare a port it owns)`,
      });
    }
    if (from && (isHost(target) || isDev(target))) {
      violations.push({ rule: 'layering', file, detail: `${where}: a module must not import the host or dev code` });
    }
    if (isDev(target) && !isDev(file) && !isTest(file) && !edge.dynamic && !edge.typeOnly) {
      violations.push({
        rule: 'dev-only',
        file,
        detail: `${where}: load dev-only code with import() where it is used`,
      });
    }
    if (file.startsWith('web/src/')) {
      const feature = featureOf(file);
      const other = featureOf(target);
      const shared = file.startsWith('web/src/lib/') || file.startsWith('web/src/components/');
      if ((feature || shared) && target.startsWith('web/src/app/')) {
        violations.push({
          rule: 'web-features',
          file,
          detail: `${where}: features, lib and components do not import the app (the app passes what a screen needs)`,
        });
      }
      if (shared && other) {
        violations.push({ rule: 'web-features', file, detail: `${where}: lib and components do not import features` });
      }
      if (feature && other && other !== feature && !isFeatureIndex(target)) {
        violations.push({
          rule: 'web-features',
          file,
          detail: `${where}: import another feature only through its index, or move the shared piece to web/src/lib or components`,
        });
      }
    }
  }

  const { runtime, all } = cyclesIn(root, graph);
  const runtimeSets = new Set(runtime.map((c) => c.files.join(' ')));
  for (const [kind, cycles] of [
    ['run-time', runtime],
    ['type', all.filter((c) => !runtimeSets.has(c.files.join(' ')))],
  ] as const) {
    for (const { files: members, loop } of cycles) {
      violations.push({
        rule: 'cycle',
        file: members[0] as string,
        detail: `${kind} import cycle among ${members.length} files, e.g. ${loop.join(' → ')}`,
      });
    }
  }

  for (const file of files) {
    const from = moduleOf(file);
    if (!from && !isPlatform(file)) continue;
    const mine = from ?? 'platform';
    for (const table of tablesNamedBy(readFileSync(join(root, file), 'utf8'))) {
      const theirs = owner.get(table);
      if (theirs && theirs !== mine) {
        violations.push({ rule: 'foreign-table', file, detail: `SQL names "${table}", a table of ${theirs}` });
      }
    }
  }
  return violations;
}
