import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export type FieldErrors = Record<string, string[]>;

/**
 * A 422's `message`, as SPEC §6 fixes it for the API. Clients show what to fix instead: the SPA turns
 * `errors` into 「入力内容を確認してください。（メールアドレス、パスワード）」 (src/lib/field-labels.ts).
 */
const INVALID_INPUT_MESSAGE = '不正な値が入力されました。';
/** 404s say what is missing; this when nothing more is known. */
export const NOT_FOUND_MESSAGE = 'ページが見つかりません。';
/** An outage (503) says the shop is temporarily unavailable, not that something is wrong with the member's side. */
const UNAVAILABLE_MESSAGE = 'ただいまサービスを利用できません。しばらくしてからもう一度お試しください。';

type Kind =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'csrf'
  | 'validation'
  | 'too_many_requests'
  | 'unavailable';

const statusOf: Record<Kind, ContentfulStatusCode> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  csrf: 419 as ContentfulStatusCode,
  validation: 422,
  too_many_requests: 429,
  unavailable: 503,
};

const defaultMessage: Record<Kind, string> = {
  bad_request: 'リクエストの形式が正しくありません。',
  unauthorized: 'ログインしてください。',
  forbidden: 'この操作を行う権限がありません。',
  not_found: NOT_FOUND_MESSAGE,
  conflict: '他の操作と競合しました。最新の内容を確認してからやり直してください。',
  payload_too_large: '送信されたデータが大きすぎます。',
  // The seed's SPA looks for this exact English text on 419.
  csrf: 'CSRF token mismatch.',
  validation: INVALID_INPUT_MESSAGE,
  too_many_requests: '試行回数が多すぎます。しばらく時間をおいてから再度お試しください。',
  unavailable: UNAVAILABLE_MESSAGE,
};

/** The errors a service may throw; `errorResponse` is the only place that turns them into HTTP. */
export class AppError extends Error {
  readonly kind: Kind;
  readonly errors: FieldErrors | undefined;
  readonly retryAfter: number | undefined;
  /** More facts for the client, beside `message` (e.g. the actual count of a 409). */
  readonly details: Record<string, unknown> | undefined;
  constructor(
    kind: Kind,
    message?: string,
    options: { errors?: FieldErrors; retryAfter?: number; details?: Record<string, unknown> } = {},
  ) {
    super(message ?? defaultMessage[kind]);
    this.name = 'AppError';
    this.kind = kind;
    this.errors = options.errors;
    this.retryAfter = options.retryAfter;
    this.details = options.details;
  }
  get status(): ContentfulStatusCode {
    return statusOf[this.kind];
  }
}

/** 422 in the spec's shape: the fields' messages, and the spec's message unless a sharper one is given. */
export const validationError = (errors: FieldErrors, message = INVALID_INPUT_MESSAGE) =>
  new AppError('validation', message, { errors });

export function errorResponse(c: Context, error: AppError): Response {
  if (error.retryAfter !== undefined) c.header('Retry-After', String(error.retryAfter));
  const body = { ...error.details, message: error.message, ...(error.errors ? { errors: error.errors } : {}) };
  return c.json(body, error.status);
}
