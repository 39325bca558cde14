// The call graph scripts/events-map.ts draws the flows with: which declarations a function names, through
// imports and re-exports, and the events recorded on the way. Read with oxc (Vite's parser); no types.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseSync } from 'vite';
import { type EventName, eventNames } from '../src/events/contracts.ts';

export type Node = { type: string; [key: string]: unknown };
export const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';

export interface Binding {
  file: string;
  name: string;
}

interface FileIndex {
  /** Top-level functions and constants, by name. */
  declarations: Map<string, Node>;
  /** Imported (run-time) names: local name → the exporting file and its exported name. */
  imports: Map<string, Binding>;
  /** `export { a as b } from './x.ts'` and `export { a as b }`: exported name → where it is declared. */
  exports: Map<string, Binding>;
}

export class CallGraph {
  readonly #root: string;
  readonly #files = new Map<string, FileIndex>();

  constructor(root: string) {
    this.#root = root;
  }

  index(file: string): FileIndex {
    const known = this.#files.get(file);
    if (known) return known;
    const found: FileIndex = { declarations: new Map(), imports: new Map(), exports: new Map() };
    this.#files.set(file, found);
    const path = join(this.#root, file);
    if (!existsSync(path)) return found;
    const parsed = parseSync(file, readFileSync(path, 'utf8'));
    const near = (specifier: string) => relative(this.#root, resolve(dirname(path), specifier));
    for (const statement of (parsed.program as unknown as { body: Node[] }).body) {
      const declaration =
        statement.type.startsWith('Export') && isNode(statement.declaration) ? statement.declaration : statement;
      if (declaration.type === 'FunctionDeclaration' || declaration.type === 'ClassDeclaration') {
        const id = declaration.id as { name: string } | null;
        if (id) found.declarations.set(id.name, declaration);
      }
      if (declaration.type === 'VariableDeclaration') {
        for (const d of declaration.declarations as Node[]) {
          const id = d.id as Node;
          if (id.type === 'Identifier') found.declarations.set(id.name as string, d);
        }
      }
      const source = (statement.source as { value?: string } | null)?.value;
      if (statement.type === 'ImportDeclaration' && statement.importKind !== 'type' && source?.startsWith('.')) {
        for (const s of statement.specifiers as Node[]) {
          if (s.importKind === 'type') continue;
          const imported = s.type === 'ImportSpecifier' ? nameOf(s.imported as Node) : 'default';
          found.imports.set(nameOf(s.local as Node), { file: near(source), name: imported });
        }
      }
      if (statement.type === 'ExportNamedDeclaration' && statement.exportKind !== 'type') {
        for (const s of (statement.specifiers as Node[] | undefined) ?? []) {
          const local = nameOf(s.local as Node);
          const target = source?.startsWith('.') ? near(source) : file;
          found.exports.set(nameOf(s.exported as Node), { file: target, name: local });
        }
      }
    }
    return found;
  }

  /** Where `name`, as seen from `file`, is declared (through imports and re-exports), if in the project. */
  resolve(file: string, name: string, seen = new Set<string>()): Binding | undefined {
    const key = `${file}#${name}`;
    if (seen.has(key)) return undefined;
    seen.add(key);
    const index = this.index(file);
    if (index.declarations.has(name)) return { file, name };
    const imported = index.imports.get(name);
    if (imported) return this.resolveExport(imported.file, imported.name, seen);
    return undefined;
  }

  resolveExport(file: string, name: string, seen = new Set<string>()): Binding | undefined {
    const index = this.index(file);
    const exported = index.exports.get(name);
    if (exported)
      return exported.file === file
        ? this.resolve(file, exported.name, seen)
        : this.resolveExport(exported.file, exported.name, seen);
    return index.declarations.has(name) ? { file, name } : undefined;
  }

  /**
   * What running `start` may reach: the declarations it names, theirs in turn, and the events recorded
   * on the way (`recordEvent(tx, 'Name', …)`). Calls through a port (`deps.payments.refundPayment`) are
   * not seen; a flow names their implementations.
   */
  reach(starts: Binding[]): { bindings: Set<string>; files: Set<string>; records: Set<EventName> } {
    const bindings = new Set<string>();
    const records = new Set<EventName>();
    const queue = [...starts];
    for (let next = queue.pop(); next; next = queue.pop()) {
      const key = `${next.file}#${next.name}`;
      if (bindings.has(key)) continue;
      bindings.add(key);
      const node = this.index(next.file).declarations.get(next.name);
      if (!node) continue;
      const from = next.file;
      walk(node, (found) => {
        if (found.type === 'CallExpression' && nameOrNull(found.callee) === 'recordEvent') {
          const event = ((found.arguments as Node[])[1] as { value?: unknown } | undefined)?.value;
          if (typeof event === 'string' && (eventNames as string[]).includes(event)) records.add(event as EventName);
        }
        if (found.type === 'Identifier') {
          const target = this.resolve(from, found.name as string);
          if (target) queue.push(target);
        }
      });
    }
    const files = new Set([...bindings].map((key) => key.split('#')[0] as string));
    return { bindings, files, records };
  }
}

export const nameOf = (node: Node) => (node.name ?? node.value) as string;
export const nameOrNull = (node: unknown) => (isNode(node) && node.type === 'Identifier' ? (node.name as string) : null);

/** Visits the expressions of `node`: not types, property names or member names. */
export function walk(node: Node, visit: (node: Node) => void): void {
  if (
    node.type.startsWith('TS') &&
    node.type !== 'TSAsExpression' &&
    node.type !== 'TSSatisfiesExpression' &&
    node.type !== 'TSNonNullExpression'
  )
    return;
  visit(node);
  for (const [key, value] of Object.entries(node)) {
    if (key === 'typeAnnotation' || key === 'returnType' || key === 'typeParameters' || key === 'typeArguments') continue;
    if (
      (node.type === 'MemberExpression' && key === 'property' && !node.computed) ||
      (node.type === 'Property' && key === 'key' && !node.computed)
    )
      continue;
    if (Array.isArray(value)) for (const item of value) isNode(item) && walk(item, visit);
    else if (isNode(value)) walk(value, visit);
  }
}
