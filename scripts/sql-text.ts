/**
 * Lines of SQL written as text in src/ (decision 0035): string and template literals — tagged `sql`
 * templates too — that hold a statement or a clause, which the type checker cannot see. A literal is a
 * marked exception when a comment saying `SQL as text:` and why stands on one of the few lines above it
 * (COPY, advisory locks, pg_notify, LISTEN: what no builder can say). tests/unit/sql-text.test.ts holds
 * the counts so they cannot creep back; `node scripts/sql-text.ts` prints them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseSync } from '@swc/core';

export const ROOT = resolve(import.meta.dirname, '..');

/**
 * Generated (the database interface) or no database code at all: the development Stripe emulator, and
 * the queue dashboard's browser script and stylesheet (whose words — "select", "update", "order by" in
 * its sort code — the heuristic would read as statements).
 */
const SKIPPED = ['src/db/schema.ts', 'src/dev/stripe-emulator/', 'src/http/queue-dashboard-ui.ts'];

/** A statement or a clause: what only a database reads. */
const SQL =
  /(^\s*(listen|notify)\s|\bselect\s+\w+\s*\(|\b(select\s+(distinct|count|[\w.*"]+\s*(,|\bas\b|\bfrom\b))|select\s+1\b|insert\s+into|update\s+\w+\s+set|delete\s+from|on\s+conflict|returning\s+[\w*]|order\s+by\s+\w|group\s+by\s+\w|for\s+update\b|(left\s+)?join\s+\w+\s+\w+\s+on|\w+\.\w+\s+(=|<>|<=|>=|<|>|in|is|like|ilike)\s|\w+\.\w+\s+as\s+"\w+"|\w+\s+(=|<>|<=|>=)\s*(\?|\$\d|any\()|\bwhere\s+\w+(\.\w+)?\s+(=|<|>|in|is|like|ilike|not)\b))/i;

/** How far above a literal its `SQL as text:` comment may stand. */
const MARK_DISTANCE = 4;
const MARK = /\/\/.*SQL as text:|\*.*SQL as text:/;

export interface SqlTextLiteral {
  file: string;
  line: number;
  lines: number;
  marked: boolean;
  text: string;
}

interface Node {
  type?: string;
  span?: { start: number; end: number };
  [key: string]: unknown;
}

function* literals(node: unknown): Generator<Node> {
  if (Array.isArray(node)) {
    for (const item of node) yield* literals(item);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const n = node as Node;
  if (n.type === 'StringLiteral' || n.type === 'TemplateLiteral') yield n;
  for (const [key, value] of Object.entries(n)) if (key !== 'span' && value && typeof value === 'object') yield* literals(value);
}

const textOf = (node: Node): string =>
  node.type === 'StringLiteral' ? String(node.value) : (node.quasis as { raw: string }[]).map((q) => q.raw).join(' … ');

/** The SQL literals of one file. */
export function sqlTextOf(file: string, code: string): SqlTextLiteral[] {
  // A leading `;` pins where the module's spans start (swc's byte positions are global to the process).
  const ast = parseSync(`;${code}`, { syntax: 'typescript', tsx: file.endsWith('.tsx') });
  const base = (ast.span as { start: number }).start + 1;
  const bytes = Buffer.from(code);
  const lineAt = (byte: number) => {
    let line = 1;
    for (let i = 0; i < byte && i < bytes.length; i++) if (bytes[i] === 10) line++;
    return line;
  };
  const sourceLines = code.split('\n');
  const found: SqlTextLiteral[] = [];
  for (const node of literals(ast.body)) {
    const text = textOf(node);
    if (!SQL.test(text.replace(/\s+/g, ' '))) continue;
    const span = node.span as { start: number; end: number };
    const line = lineAt(span.start - base);
    const end = lineAt(span.end - base - 1);
    found.push({ file, line, lines: end - line + 1, marked: false, text });
  }
  // A literal inside a counted one (a template's `${'…'}`) is counted with it.
  const outer = found
    .filter((a) => !found.some((b) => b !== a && b.line <= a.line && a.line + a.lines <= b.line + b.lines && b.lines > a.lines))
    .sort((a, b) => a.line - b.line);
  // A mark covers the one literal below it.
  const used = new Set<number>();
  for (const literal of outer) {
    for (let at = literal.line; at >= Math.max(1, literal.line - MARK_DISTANCE); at--) {
      if (!MARK.test(sourceLines[at - 1] ?? '')) continue;
      if (!used.has(at)) {
        used.add(at);
        literal.marked = true;
      }
      break;
    }
  }
  return outer;
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/** Every SQL literal in src/. */
export function sqlText(root = ROOT): SqlTextLiteral[] {
  const all: SqlTextLiteral[] = [];
  for (const path of sourceFiles(join(root, 'src'))) {
    const file = relative(root, path);
    if (SKIPPED.some((skip) => file === skip || file.startsWith(skip))) continue;
    all.push(...sqlTextOf(file, readFileSync(path, 'utf8')));
  }
  return all;
}

/** Lines per file: `unmarked` must go, `marked` are the exceptions that say why. */
export function sqlTextLines(root = ROOT): Record<string, { unmarked: number; marked: number }> {
  const byFile: Record<string, { unmarked: number; marked: number }> = {};
  for (const literal of sqlText(root)) {
    const entry = byFile[literal.file] ?? { unmarked: 0, marked: 0 };
    byFile[literal.file] = entry;
    if (literal.marked) entry.marked += literal.lines;
    else entry.unmarked += literal.lines;
  }
  return byFile;
}

/**
 * Statements sent as text (decision 0040): MikroORM's `execute(text)` writes the parameters into the
 * text itself, and `sql.raw` / `CompiledQuery.raw` take text as it is. Queries are Kysely's, with bound
 * parameters; these only in the files allowed below, each saying why.
 */
const TEXT_EXECUTION = /\.execute(<[^>]*>)?\(\s*['"`]|\bem\.execute\b|\bsql\.raw\s*\(|\bCompiledQuery\.raw\s*\(/;
const TEXT_EXECUTION_ALLOWED: Record<string, string> = {
  'src/db/online-migration.ts': "migration machinery: MikroORM's Migration#execute (SET lock_timeout, a catalogue read)",
};

/** Lines of src/ and workers/ that send a statement as text outside the allowed files. */
export function textExecutions(root = ROOT): { file: string; line: number; text: string }[] {
  const found: { file: string; line: number; text: string }[] = [];
  for (const dir of ['src', 'workers']) {
    for (const path of sourceFiles(join(root, dir))) {
      const file = relative(root, path);
      if (TEXT_EXECUTION_ALLOWED[file] || SKIPPED.some((skip) => file === skip || file.startsWith(skip))) continue;
      readFileSync(path, 'utf8')
        .split('\n')
        .forEach((text, i) => {
          if (TEXT_EXECUTION.test(text)) found.push({ file, line: i + 1, text: text.trim() });
        });
    }
  }
  return found;
}

if (import.meta.main) {
  const verbose = process.argv.includes('--list');
  const lines = sqlTextLines();
  let unmarked = 0;
  let marked = 0;
  for (const [file, count] of Object.entries(lines).sort()) {
    unmarked += count.unmarked;
    marked += count.marked;
    console.log(`${String(count.unmarked).padStart(4)} ${String(count.marked).padStart(4)}  ${file}`);
  }
  console.log(`${String(unmarked).padStart(4)} ${String(marked).padStart(4)}  (lines of SQL as text: unmarked, marked)`);
  if (verbose)
    for (const l of sqlText()) console.log(`${l.file}:${l.line} ${l.marked ? '[marked] ' : ''}${l.text.slice(0, 100)}`);
}
