/**
 * Lengths of files and functions (issue 31, STYLE.md habit 17): no file in src/ over 400 lines (the
 * generated src/db/schema.ts and src/dev/ aside), none in web/src over 300, no function over 80 in
 * either — React components included. A function's length runs from the line it starts on to the line
 * of its closing brace; a nested function counts inside its parent and on its own.
 * tests/unit/sizes.test.ts holds the limits; `node scripts/check-sizes.ts` prints what is over them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseSync } from '@swc/core';

const ROOT = resolve(import.meta.dirname, '..');

const FUNCTION_LIMIT = 80;
const FILE_LIMITS = [
  { dir: 'src', limit: 400 },
  { dir: 'web/src', limit: 300 },
];
/** Generated (the database interface) or development-only (the Stripe emulator). */
const SKIPPED = ['src/db/schema.ts', 'src/dev/'];

interface Oversize {
  file: string;
  /** The function's name (`file` for the file itself). */
  name: string;
  line: number;
  lines: number;
  limit: number;
}

interface Node {
  type?: string;
  span?: { start: number; end: number };
  [key: string]: unknown;
}

const FUNCTIONS = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
  'ClassMethod',
  'PrivateMethod',
  'Constructor',
  'MethodProperty',
  'GetterProperty',
  'SetterProperty',
]);

const identifierOf = (node: unknown): string | undefined => {
  const n = node as Node | undefined;
  if (!n) return undefined;
  if (n.type === 'Identifier') return String(n.value);
  if (n.type === 'PrivateName') return `#${identifierOf(n.id)}`;
  if (n.type === 'StringLiteral') return String(n.value);
  return undefined;
};

/** Every function with the name it is known by: its own, its variable's, its key's, or the caller's. */
function* functions(node: unknown, context: string): Generator<{ node: Node; name: string }> {
  if (Array.isArray(node)) {
    for (const item of node) yield* functions(item, context);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const n = node as Node;
  let inner = context;
  if (n.type === 'VariableDeclarator') inner = identifierOf(n.id) ?? context;
  else if (n.type === 'KeyValueProperty' || n.type === 'ClassProperty') inner = identifierOf(n.key) ?? context;
  else if (n.type === 'CallExpression') {
    const callee = n.callee as Node;
    const name = identifierOf(callee) ?? identifierOf((callee as { property?: unknown }).property);
    inner = name ? `${context} > ${name}(…)` : context;
  }
  if (n.type && FUNCTIONS.has(n.type)) {
    const own = identifierOf(n.identifier) ?? identifierOf(n.key) ?? (n.type === 'Constructor' ? 'constructor' : undefined);
    inner = own ?? context;
    yield { node: n, name: inner };
  }
  for (const [key, value] of Object.entries(n))
    if (key !== 'span' && value && typeof value === 'object') yield* functions(value, inner);
}

/** The functions of one file longer than the limit. */
export function longFunctionsOf(file: string, code: string, limit = FUNCTION_LIMIT): Oversize[] {
  // A leading `;` pins where the module's spans start (swc's byte positions are global to the process).
  const ast = parseSync(`;${code}`, { syntax: 'typescript', tsx: file.endsWith('.tsx') });
  const base = (ast.span as { start: number }).start + 1;
  const bytes = Buffer.from(code);
  const lineStarts = [0];
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10) lineStarts.push(i + 1);
  const lineAt = (byte: number) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((lineStarts[mid] ?? 0) <= byte) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
  const found: Oversize[] = [];
  for (const { node, name } of functions(ast.body, '<anonymous>')) {
    const span = node.span as { start: number; end: number };
    const line = lineAt(span.start - base);
    const lines = lineAt(span.end - base - 1) - line + 1;
    if (lines > limit) found.push({ file, name, line, lines, limit });
  }
  return found;
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/** Every file and function over its limit in src/ and web/src. */
export function oversized(root = ROOT): Oversize[] {
  const all: Oversize[] = [];
  for (const { dir, limit } of FILE_LIMITS) {
    for (const path of sourceFiles(join(root, dir))) {
      const file = relative(root, path);
      if (SKIPPED.some((skip) => file === skip || file.startsWith(skip))) continue;
      const code = readFileSync(path, 'utf8');
      const lines = code.endsWith('\n') ? code.split('\n').length - 1 : code.split('\n').length;
      if (lines > limit) all.push({ file, name: 'file', line: 1, lines, limit });
      all.push(...longFunctionsOf(file, code));
    }
  }
  return all;
}

if (import.meta.main) {
  const over = oversized();
  for (const o of over) console.log(`${String(o.lines).padStart(5)} > ${o.limit}  ${o.file}:${o.line} ${o.name}`);
  console.log(`${over.length} over the limits`);
}
