import { toJsonSchema } from '@valibot/to-json-schema';
import type { MiddlewareHandler } from 'hono';
import { type DescribeRouteOptions, describeRoute, resolver } from 'hono-openapi';
import * as v from 'valibot';
import type { Permission } from './access.ts';

/** docs/decisions/0041-openapi-contract.md: what a guard, the body limit or CSRF can answer is added here, so each route lists only its own. */

const ErrorAnswer = v.pipe(
  v.object({
    message: v.string(),
    code: v.optional(v.string()),
  }),
  v.metadata({ ref: 'Error' }),
);

const ValidationErrorAnswer = v.pipe(
  v.object({
    message: v.string(),
    errors: v.record(v.string(), v.array(v.string())),
  }),
  v.metadata({ ref: 'ValidationError' }),
);

export const MessageAnswer = v.pipe(v.object({ message: v.string() }), v.metadata({ ref: 'Message' }));

export const pageEntries = { total: v.number(), page: v.number(), per_page: v.number() };

export const timestamp = () => v.pipe(v.string(), v.isoTimestamp());

export const pathIds = {
  number: v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,8}$/)),
  uuid: v.pipe(v.string(), v.regex(/^[0-9a-fA-F-]+$/)),
  token: v.string(),
};

interface MediaAnswer {
  media: string;
  description: string;
  headers?: Record<string, string>;
}

interface RedirectAnswer {
  redirect: string;
}

interface EmptyAnswer {
  empty: string;
}

type Answer = v.GenericSchema | MediaAnswer | RedirectAnswer | EmptyAnswer;

/** `admin`: staff whose role grants `permission` (http/access.ts); `self-or-admin`: also the member themselves. */
type Access = { access: 'public' | 'member' } | { access: 'admin' | 'self-or-admin'; permission: Permission };

type Operation = Access & {
  summary: string;
  description?: string;
  tags: string[];
  body?: v.GenericSchema;
  /** Its fields are read by busboy, not one valibot schema. */
  multipart?: Record<string, unknown>;
  /** The same fields also taken as a JSON object (no files). */
  multipartJson?: Record<string, unknown>;
  raw?: string;
  query?: v.GenericSchema;
  path?: Record<string, v.GenericSchema>;
  headers?: Record<string, string>;
  answers: Record<number, Answer>;
  errors?: number[];
  csrfExempt?: boolean;
};

const ERROR_TEXT: Record<number, string> = {
  400: '本文の形式が正しくありません（JSON でない、入れ子が深すぎるなど）。',
  401: 'ログインしていません。',
  403: '権限がありません（code: forbidden_for_role ＝ 役割にない操作、two_factor_enrollment_required ＝ 二段階認証が未登録、admin_network_refused ＝ 許可されていない接続元）。',
  404: '見つかりません。',
  409: '他の操作と競合しました（code で理由を示すことがあります）。',
  413: '送信されたデータが大きすぎます。',
  419: 'CSRF トークンが一致しません。',
  422: '入力内容に誤りがあります。',
  429: '試行回数が多すぎます（Retry-After 秒後に再試行できます）。',
  503: '一時的に利用できません（データベースの停止、停止処理中など）。',
};

function impliedErrors(op: Operation, method: string): number[] {
  const statuses = new Set<number>([503, ...(op.errors ?? [])]);
  if (op.access !== 'public') statuses.add(401);
  if (op.access === 'admin' || op.access === 'self-or-admin') statuses.add(403);
  if (op.path) statuses.add(404);
  if (op.query) statuses.add(422);
  if (method !== 'get') {
    statuses.add(413);
    if (!op.csrfExempt) statuses.add(419);
  }
  if (op.body || op.multipart) {
    statuses.add(400);
    statuses.add(422);
  }
  return [...statuses].sort((a, b) => a - b);
}

const json = (schema: v.GenericSchema) => ({ 'application/json': { schema: resolver(schema) } });

function successAnswer(status: number, answer: Answer) {
  if ('empty' in answer) return { description: answer.empty };
  if ('redirect' in answer) {
    return {
      description: answer.redirect,
      headers: { Location: { description: '移動先', schema: { type: 'string' } } },
    };
  }
  if ('media' in answer) {
    const headers = Object.fromEntries(
      Object.entries(answer.headers ?? {}).map(([name, description]) => [name, { description, schema: { type: 'string' } }]),
    );
    return {
      description: answer.description,
      ...(answer.headers ? { headers } : {}),
      content: { [answer.media]: { schema: { type: 'string', contentMediaType: answer.media } } },
    };
  }
  return { description: status === 202 ? '受け付けました。' : '成功しました。', content: json(answer) };
}

export function inputJsonSchema(schema: v.GenericSchema) {
  const { $schema: _, ...converted } = toJsonSchema(schema, { typeMode: 'input', errorMode: 'ignore', target: 'draft-2020-12' });
  return converted as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
}

function parameters(where: 'query' | 'path' | 'header', schema: v.GenericSchema) {
  const converted = inputJsonSchema(schema);
  return Object.entries(converted.properties ?? {}).map(([name, property]) => ({
    in: where,
    name,
    required: where === 'path' || (converted.required ?? []).includes(name),
    schema: property,
  }));
}

function operationSpec(op: Operation, method: string): DescribeRouteOptions {
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(op.answers)) responses[status] = successAnswer(Number(status), answer);
  for (const status of impliedErrors(op, method)) {
    responses[status] = {
      description: ERROR_TEXT[status] ?? 'エラー',
      content: json(status === 422 ? v.union([ValidationErrorAnswer, ErrorAnswer]) : ErrorAnswer),
    };
  }
  const params = [
    ...(op.path ? parameters('path', v.object(op.path)) : []),
    ...(op.query ? parameters('query', op.query) : []),
    ...Object.entries(op.headers ?? {}).map(([name, description]) => ({
      in: 'header',
      name,
      required: true,
      description,
      schema: { type: 'string' },
    })),
  ];
  const requestBody = op.body
    ? { required: true, content: { 'application/json': { schema: resolver(op.body, { typeMode: 'input' }) } } }
    : op.multipart
      ? {
          required: true,
          content: {
            'multipart/form-data': { schema: op.multipart },
            ...(op.multipartJson ? { 'application/json': { schema: op.multipartJson } } : {}),
          },
        }
      : op.raw
        ? { required: true, content: { [op.raw]: { schema: { type: 'string' } } } }
        : undefined;
  return {
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: op.tags,
    // Who may call it: public, member (signed in), admin (staff enrolled in two-factor), self-or-admin.
    'x-access': op.access,
    ...('permission' in op ? { 'x-permission': op.permission } : {}),
    ...(op.access === 'public' ? { security: [] } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  } as DescribeRouteOptions;
}

type Method = 'get' | 'post' | 'put' | 'delete';

/** As a route's first middleware; the method decides what a request can be refused with before its handler runs. */
export const operation = (method: Method, op: Operation): MiddlewareHandler => describeRoute(operationSpec(op, method));
