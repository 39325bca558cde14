import type { Context } from 'hono';
import * as v from 'valibot';
import { AppError, type FieldErrors, validationError } from './errors.ts';

// 10,000 levels overflowed the stack of every walk over the body.
export const MAX_JSON_DEPTH = 32;

export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92)
        i++; // backslash: skip the escaped character
      else if (ch === 34) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 123 || ch === 91) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (ch === 125 || ch === 93) depth--;
  }
  return deepest;
}

export async function readJson(c: Context): Promise<Record<string, unknown>> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) {
    throw new AppError('bad_request', 'Content-Type は application/json にしてください。');
  }
  const text = await c.req.text();
  if (jsonDepth(text) > MAX_JSON_DEPTH) throw new AppError('bad_request', 'JSON の入れ子が深すぎます。');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError('bad_request', 'JSON の形式が正しくありません。');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('bad_request', 'JSON オブジェクトを送信してください。');
  }
  return body as Record<string, unknown>;
}

export function fieldErrors(issues: readonly v.BaseIssue<unknown>[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const key = issue.path?.map((p) => String(p.key)).join('.') || '_';
    errors[key] = [...(errors[key] ?? []), issue.message];
  }
  return errors;
}

/** Without abortPipeEarly, so cross-field checks report together with every other field; a field keeps only its first message. */
function parseAll<S extends v.GenericSchema>(schema: S, input: unknown) {
  const result = v.safeParse(schema, withAllKeys(schema, input));
  if (result.success) return result;
  const seen = new Set<string>();
  const issues = result.issues.filter((issue) => {
    const key = issue.path?.map((p) => String(p.key)).join('.') || '_';
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { ...result, issues };
}

function entriesOf(schema: v.GenericSchema): Record<string, unknown> | undefined {
  const s = schema as { entries?: Record<string, unknown>; pipe?: v.GenericSchema[] };
  return s.entries ?? (s.pipe?.[0] ? entriesOf(s.pipe[0]) : undefined);
}

const schemaKeys = new WeakMap<v.GenericSchema, readonly string[] | null>();

/** A missing key becomes `undefined`, so the field reports its own Japanese message instead of valibot's English one. */
function withAllKeys(schema: v.GenericSchema, input: unknown): unknown {
  let keys = schemaKeys.get(schema);
  if (keys === undefined) {
    const entries = entriesOf(schema);
    keys = entries ? Object.keys(entries) : null;
    schemaKeys.set(schema, keys);
  }
  if (!keys || typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const filled: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  for (const key of keys) if (!(key in filled)) filled[key] = undefined;
  return filled;
}

/** C0 controls but tab/LF/CR, DEL and lone surrogates (PostgreSQL refuses NUL). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters refused
const FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]|[\ud800-\udfff]/u;
const FORBIDDEN_MESSAGE = '使用できない文字（制御文字など）が含まれています。';

function fieldsWithForbiddenCharacters(input: unknown, path = ''): string[] {
  if (typeof input === 'string') return FORBIDDEN.test(input) ? [path || '_'] : [];
  if (Array.isArray(input))
    return input.flatMap((item, i) => fieldsWithForbiddenCharacters(item, path ? `${path}.${i}` : String(i)));
  if (input && typeof input === 'object') {
    return Object.entries(input).flatMap(([key, value]) => [
      ...(FORBIDDEN.test(key) ? [path ? `${path}.${key}` : key] : []),
      ...fieldsWithForbiddenCharacters(value, path ? `${path}.${key}` : key),
    ]);
  }
  return [];
}

function holdsForbidden(input: unknown): boolean {
  if (typeof input === 'string') return FORBIDDEN.test(input);
  if (Array.isArray(input)) {
    for (const item of input) if (holdsForbidden(item)) return true;
    return false;
  }
  if (input && typeof input === 'object') {
    for (const key of Object.keys(input)) {
      if (FORBIDDEN.test(key) || holdsForbidden((input as Record<string, unknown>)[key])) return true;
    }
  }
  return false;
}

/** Every text a client sends passes here first (parseInput, parseInputs, multipart fields): 422 on a forbidden character. */
export function assertCleanText(input: unknown): void {
  if (!holdsForbidden(input)) return;
  const fields = fieldsWithForbiddenCharacters(input);
  if (fields.length) throw validationError(Object.fromEntries(fields.map((field) => [field, [FORBIDDEN_MESSAGE]])));
}

export function parseInput<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  assertCleanText(input);
  const result = parseAll(schema, input);
  if (!result.success) throw validationError(fieldErrors(result.issues));
  return result.output;
}

export function parseInputs<A extends v.GenericSchema, B extends v.GenericSchema>(
  input: unknown,
  a: A,
  b: B,
): v.InferOutput<A> & v.InferOutput<B> {
  assertCleanText(input);
  const ra = parseAll(a, input);
  const rb = parseAll(b, input);
  if (!ra.success || !rb.success) {
    throw validationError(fieldErrors([...(ra.success ? [] : ra.issues), ...(rb.success ? [] : rb.issues)]));
  }
  return Object.assign({}, ra.output, rb.output);
}

export async function jsonInput<S extends v.GenericSchema>(c: Context, schema: S): Promise<v.InferOutput<S>> {
  return parseInput(schema, await readJson(c));
}

export function queryInput<S extends v.GenericSchema>(c: Context, schema: S): v.InferOutput<S> {
  return parseInput(schema, c.req.query());
}

export const rules = {
  requiredString: (label: string, max: number) =>
    v.pipe(
      v.string(`${label}を入力してください。`),
      v.trim(),
      v.minLength(1, `${label}を入力してください。`),
      v.maxLength(max, `${label}は${max}文字以内で入力してください。`),
    ),
  email: (label = 'メールアドレス') =>
    v.pipe(
      v.string(`${label}を入力してください。`),
      v.trim(),
      v.minLength(1, `${label}を入力してください。`),
      v.maxLength(254, `${label}は254文字以内で入力してください。`),
      v.email(`${label}の形式が正しくありません。`),
      v.toLowerCase(),
    ),
  enteredPassword: (label = 'パスワード') =>
    v.pipe(
      v.string(`${label}を入力してください。`),
      v.minLength(1, `${label}を入力してください。`),
      v.maxLength(72, `${label}は72文字以内で入力してください。`),
      v.maxBytes(256, `${label}は72文字以内で入力してください。`),
    ),
  password: (label = 'パスワード') =>
    v.pipe(rules.enteredPassword(label), v.minLength(8, `${label}は8文字以上で入力してください。`)),
  date: () =>
    v.pipe(
      v.string('日付は YYYY-MM-DD で入力してください。'),
      v.regex(/^\d{4}-\d{2}-\d{2}$/, '日付は YYYY-MM-DD で入力してください。'),
      v.check((text) => {
        const day = new Date(`${text}T00:00:00Z`);
        return !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === text;
      }, '日付が正しくありません。'),
      // PostgreSQL and JavaScript disagree about years before 1 and the shop has no sales before 2000.
      v.check((text) => Number(text.slice(0, 4)) >= 2000, '日付は2000年から9999年までの範囲で入力してください。'),
    ),
};

const listNumber = (label: string, max: number) =>
  v.pipe(
    v.string(`${label}が正しくありません。`),
    v.regex(/^\d{1,6}$/, `${label}が正しくありません。`),
    v.transform(Number),
    v.minValue(1, `${label}が正しくありません。`),
    v.maxValue(max, `${label}が正しくありません。`),
  );

/** The one page/per_page rule of every list (page 1–100,000, default 1; per_page 1–100, default 20): spread into a query schema. */
/** One rule for a period's two ends (both optional, Japan days as YYYY-MM-DD): the end not before the start. */
export const datesInOrder = (q: { from?: string; to?: string }) => !q.from || !q.to || q.from <= q.to;
export const DATES_REVERSED = '終了日は開始日と同じか、それより後の日付を指定してください。';

export const paging = {
  page: v.optional(listNumber('ページ番号', 100_000), '1'),
  per_page: v.optional(listNumber('表示件数', 100), '20'),
};

export async function collectErrors<T extends unknown[]>(...checks: { [K in keyof T]: () => T[K] | Promise<T[K]> }): Promise<T> {
  const errors: FieldErrors = {};
  const results: unknown[] = [];
  for (const check of checks) {
    try {
      results.push(await check());
    } catch (error) {
      if (!(error instanceof AppError) || error.kind !== 'validation' || !error.errors) throw error;
      Object.assign(errors, error.errors);
    }
  }
  if (Object.keys(errors).length) throw validationError(errors);
  return results as T;
}
