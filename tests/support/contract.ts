import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { appModules } from '../../src/host/modules.ts';
import { apiDocument } from '../../src/http/api-docs.ts';

/**
 * Every answer of the API checked against its OpenAPI document (docs/decisions/0041-openapi-contract.md):
 * the status is one the operation documents, the content type is the documented one, and a JSON body
 * validates against the documented schema. TestClient checks each answer it gets; the fuzzer too.
 */

type Document = Awaited<ReturnType<typeof apiDocument>>;
interface MediaObject {
  schema?: unknown;
}
interface ResponseObject {
  content?: Record<string, MediaObject>;
}
export interface OperationEntry {
  method: string;
  template: string;
  pattern: RegExp;
  params: number;
  operation: { responses: Record<string, ResponseObject>; [key: string]: unknown };
}

export interface Contract {
  document: Document;
  operations: OperationEntry[];
  find(method: string, path: string): OperationEntry | undefined;
  /** What is wrong with `res` as the answer to `method path` (empty: nothing). */
  check(method: string, path: string, res: Response): Promise<string[]>;
  /** What is wrong with `res` as an answer of `entry` (a request built for that operation). */
  checkOperation(entry: OperationEntry, method: string, path: string, res: Response): Promise<string[]>;
}

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

const escapePointer = (part: string) => part.replaceAll('~', '~0').replaceAll('/', '~1');

function build(document: Document): Contract {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(document as object, 'openapi.json');
  const operations: OperationEntry[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item as Record<string, OperationEntry['operation']>)) {
      const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
      operations.push({
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${source}$`),
        params: (template.match(/\{/g) ?? []).length,
        operation,
      });
    }
  }
  operations.sort((a, b) => a.params - b.params);
  const validators = new Map<string, ValidateFunction>();
  const validatorFor = (pointer: string) => {
    let validate = validators.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `openapi.json#${pointer}` });
      validators.set(pointer, validate);
    }
    return validate;
  };

  const find = (method: string, path: string) =>
    operations.find((o) => o.method === method && o.pattern.test(path)) ??
    // HEAD is answered as GET.
    (method === 'HEAD' ? operations.find((o) => o.method === 'GET' && o.pattern.test(path)) : undefined);

  async function check(method: string, path: string, res: Response): Promise<string[]> {
    const entry = find(method, path);
    if (!entry) {
      // An unknown path or method under /api is a 404 from the catch-all, or what the layers before
      // any route refuse an unsafe request with: a body over the limit (413), no CSRF token (419).
      const refusedBefore = method !== 'GET' && method !== 'HEAD' && (res.status === 413 || res.status === 419);
      if (res.status === 404 || refusedBefore) return [];
      return [`${method} ${path} → ${res.status}: no operation in the document for this path and method`];
    }
    return checkOperation(entry, method, path, res);
  }

  async function checkOperation(entry: OperationEntry, method: string, path: string, res: Response): Promise<string[]> {
    const where = `${method} ${path} → ${res.status}`;
    const response = entry.operation.responses[String(res.status)];
    if (!response) {
      return [
        `${where}: status not documented for ${entry.method} ${entry.template} (documented: ${Object.keys(entry.operation.responses).join(', ')})`,
      ];
    }
    const media = Object.keys(response.content ?? {});
    const type = (res.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (media.length === 0) {
      const text = method === 'HEAD' ? '' : await res.clone().text();
      return text === '' ? [] : [`${where}: a body (${type}) where the document has none`];
    }
    if (!media.includes(type)) return [`${where}: content type ${type || '(none)'} is not the documented ${media.join(' or ')}`];
    if (type !== 'application/json' || method === 'HEAD') return [];
    let body: unknown;
    try {
      body = JSON.parse(await res.clone().text());
    } catch {
      return [`${where}: the body is not JSON`];
    }
    const pointer = `/paths/${escapePointer(entry.template)}/${entry.method.toLowerCase()}/responses/${res.status}/content/${escapePointer(type)}/schema`;
    const validate = validatorFor(pointer);
    if (validate(body)) return [];
    const problems = (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
    return [`${where}: body does not match the document: ${problems.join('; ')} — body: ${JSON.stringify(body).slice(0, 400)}`];
  }

  return { document, operations, find, check, checkOperation };
}

let contract: Promise<Contract> | undefined;

/** The shop's contract, built once per test process from the same routes the app mounts. */
export function apiContract(): Promise<Contract> {
  contract ??= apiDocument(appModules).then(build);
  return contract;
}

/** Throws when `res` breaks the contract of `method path` (only paths under /api are checked). */
export async function assertAnswerMatchesContract(method: string, path: string, res: Response): Promise<void> {
  const pathname = new URL(path, 'http://shop.test').pathname;
  if (!pathname.startsWith('/api/')) return;
  const problems = await (await apiContract()).check(method, pathname, res);
  if (problems.length) throw new Error(`API contract: ${problems.join('\n')}`);
}
