import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cruise, type IConfiguration, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import { parseSync } from 'vite';

/**
 * The module map, checked (docs/decisions/0012-module-boundaries.md).
 *
 * The import rules — no cycle (run-time or type-only) in src/, workers/ and web/src/; another module
 * only through its index.ts; the platform importing no module, host or dev code; src/dev only with
 * import(); SPA features apart from app/ and from each other's internals — are dependency-cruiser's,
 * written in `.dependency-cruiser.cjs` and run here through its API (`npm run lint:deps` runs the CLI
 * on the same file).
 *
 * What dependency-cruiser cannot see is checked here:
 * - an import() whose specifier is computed (a template literal with placeholders, a variable): swc
 *   drops it from the graph, so it would bypass every rule (and the type checker and the bundler);
 * - an `import('./…')` type: swc reports it only as a variable's direct annotation, so a relative one
 *   must be an `import type` the graph sees;
 * - every folder under src/modules has an index.ts;
 * - the SQL in a module's files names only tables that module owns (its entities' tableName);
 *   platform files name only the platform's own tables.
 */
export interface Violation {
  rule: string;
  file: string;
  detail: string;
}

/** Where the rules look, relative to the root (each that exists). */
export const SCANNED_ROOTS = ['src', 'workers', 'web/src', 'tests', 'scripts'];
const PLATFORM = /^src\/(lib|config|db|http|events|jobs|storage)\//;
const SOURCE = /\.(ts|tsx|mts|cts)$/;
const PACKAGE = /(^|\/)node_modules\//;
const TYPE_ONLY = new Set(['type-only', 'type-import']);

export const depcruiseConfig: IConfiguration = createRequire(import.meta.url)('../../.dependency-cruiser.cjs');

/** dependency-cruiser over `root` with the checked-in configuration. */
export async function cruiseTree(root: string): Promise<ICruiseResult> {
  const roots = SCANNED_ROOTS.filter((dir) => existsSync(join(root, dir)));
  const { output } = await cruise(roots, {
    ...depcruiseConfig.options,
    baseDir: root,
    validate: true,
    ruleSet: { forbidden: depcruiseConfig.forbidden },
  });
  if (typeof output === 'string') throw new Error('dependency-cruiser returned text, not a result');
  return output;
}

/** One loop of imports, as dependency-cruiser reports it: `loop` starts and ends at the same file. */
export interface Cycle {
  kind: 'run-time' | 'type';
  loop: string[];
}

/**
 * The distinct loops among the no-circular violations (dependency-cruiser reports one per import that
 * closes a loop: a loop of n files comes n times). A loop is `type` when one of its imports is
 * type-only, else `run-time`.
 */
export function cyclesOf(result: ICruiseResult): Cycle[] {
  const seen = new Map<string, Cycle>();
  for (const v of result.summary.violations) {
    if (v.rule.name !== 'no-circular' || !v.cycle) continue;
    const key = [v.from, ...v.cycle.map((step) => step.name)].sort().join(' ');
    if (seen.has(key)) continue;
    const kind = v.cycle.some((step) => step.dependencyTypes.some((t) => TYPE_ONLY.has(t))) ? 'type' : 'run-time';
    seen.set(key, { kind, loop: [v.from, ...v.cycle.map((step) => step.name)] });
  }
  return [...seen.values()];
}

function describe(v: IViolation): Violation {
  const types = (v.dependencyTypes ?? []).filter((t) => t !== 'local').join(', ');
  const rule = (depcruiseConfig.forbidden ?? []).find((r) => r.name === v.rule.name);
  return { rule: v.rule.name, file: v.from, detail: `${v.from} → ${v.to} (${types}): ${rule?.comment ?? ''}` };
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
    return (node.quasis as { value: { cooked: string } }[])[0]?.value.cooked ?? null;
  }
  if (node.type === 'TSLiteralType') return literal(node.literal);
  return null;
}

/**
 * The imports of a file that dependency-cruiser's graph does not hold: import() calls with a computed
 * specifier, and `import('./…')` types of the project's own files.
 */
export function hiddenImports(source: string, filename = 'file.ts'): { computed: number; importTypes: string[] } {
  const found = { computed: 0, importTypes: [] as string[] };
  if (!/\bimport\s*\(/.test(source)) return found;
  const parsed = parseSync(filename, source);
  if (parsed.errors.length) throw new Error(parsed.errors.map((e) => e.message).join('; '));
  const visit = (node: Node) => {
    if (node.type === 'ImportExpression' && literal(node.source) === null) found.computed++;
    if (node.type === 'TSImportType') {
      const specifier = literal(node.source ?? node.argument);
      if (specifier?.startsWith('.')) found.importTypes.push(specifier);
    }
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) for (const item of value) isNode(item) && visit(item);
      else if (isNode(value)) visit(value);
    }
  };
  visit(parsed.program as unknown as Node);
  return found;
}

export interface ArchitectureReport {
  violations: Violation[];
  /** The files and imports dependency-cruiser read (packages and node: built-ins left out). */
  files: string[];
  imports: number;
  typeOnlyImports: number;
  cycles: Cycle[];
}

export async function checkArchitecture(root: string): Promise<ArchitectureReport> {
  const result = await cruiseTree(root);
  const cycles = cyclesOf(result);
  const violations: Violation[] = [
    ...cycles.map(({ kind, loop }) => ({
      rule: 'no-circular',
      file: loop[0] as string,
      detail: `${kind} import cycle among ${loop.length - 1} files: ${loop.join(' → ')}`,
    })),
    ...result.summary.violations.filter((v) => v.rule.name !== 'no-circular').map(describe),
  ];

  // The one package kept in the graph (stripe, for its rule) is no file of ours.
  const ours = (path: string) => !PACKAGE.test(path);
  const files = result.modules
    .filter((m) => SOURCE.test(m.source) && !m.coreModule && !m.couldNotResolve && ours(m.source))
    .map((m) => m.source);
  const local = result.modules
    .flatMap((m) => m.dependencies)
    .filter((d) => !d.coreModule && !d.couldNotResolve && ours(d.resolved));
  const texts = new Map(files.map((file) => [file, readFileSync(join(root, file), 'utf8')]));

  for (const [file, text] of texts) {
    let hidden: ReturnType<typeof hiddenImports>;
    try {
      hidden = hiddenImports(text, file);
    } catch (error) {
      violations.push({ rule: 'parse', file, detail: (error as Error).message });
      continue;
    }
    for (let i = 0; i < hidden.computed; i++) {
      violations.push({
        rule: 'computed-import',
        file,
        detail: `${file}: an import() names its file in a string literal (a computed one bypasses the module map and the bundler)`,
      });
    }
    for (const specifier of hidden.importTypes) {
      violations.push({
        rule: 'import-type-expression',
        file,
        detail: `${file} → import('${specifier}'): write \`import type\` so the dependency graph sees it`,
      });
    }
  }

  // Who owns which table; every module has an index.ts.
  const modulesDir = join(root, 'src', 'modules');
  const modules = existsSync(modulesDir)
    ? readdirSync(modulesDir).filter((name) => statSync(join(modulesDir, name)).isDirectory())
    : [];
  const moduleOf = (path: string) => (path.startsWith('src/modules/') ? path.split('/')[2] : undefined);
  const owner = new Map<string, string>();
  for (const module of modules) {
    if (!existsSync(join(modulesDir, module, 'index.ts'))) {
      violations.push({
        rule: 'module-index',
        file: `src/modules/${module}`,
        detail: 'module without index.ts (its public surface)',
      });
    }
  }
  for (const [file, text] of texts) {
    const mine = moduleOf(file) ?? (PLATFORM.test(file) ? 'platform' : undefined);
    if (!mine) continue;
    for (const m of text.matchAll(/tableName:\s*['"]([a-z_][a-z0-9_]*)['"]/g)) owner.set(m[1] as string, mine);
  }
  for (const [file, text] of texts) {
    const mine = moduleOf(file) ?? (PLATFORM.test(file) ? 'platform' : undefined);
    if (!mine) continue;
    for (const table of tablesNamedBy(text)) {
      const theirs = owner.get(table);
      if (theirs && theirs !== mine) {
        violations.push({ rule: 'foreign-table', file, detail: `SQL names "${table}", a table of ${theirs}` });
      }
    }
  }

  return {
    violations,
    files,
    imports: local.length,
    typeOnlyImports: local.filter((d) => d.dependencyTypes.some((t) => TYPE_ONLY.has(t))).length,
    cycles,
  };
}
