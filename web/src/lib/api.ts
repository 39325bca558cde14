/**
 * The one API client (seed §7): cookies always sent, nothing cached, the CSRF cookie fetched before
 * state-changing calls and refreshed once after a 419, 422 answers collected as one message per field.
 */

export type FieldErrors = Record<string, string>;

export class ApiError extends Error {
  readonly status: number;
  readonly errors: FieldErrors;
  readonly body: unknown;
  constructor(status: number, message: string, errors: FieldErrors = {}, body: unknown = undefined) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.errors = errors;
    this.body = body;
  }
}

export const INVALID_INPUT_MESSAGE = '不正な値が入力されました。';
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function readCookie(name: string): string | undefined {
  const entry = document.cookie.split('; ').find((c) => c.startsWith(`${name}=`));
  return entry ? decodeURIComponent(entry.slice(name.length + 1)) : undefined;
}

async function initCsrf(): Promise<void> {
  try {
    const res = await fetch('/api/csrf-token', { credentials: 'include', cache: 'no-store' });
    if (!res.ok) throw new Error(`status ${res.status}`);
  } catch (error) {
    console.warn('CSRFトークンの初期化に失敗しました。', error);
    throw new ApiError(0, '通信に失敗しました。ネットワーク接続を確認してから再度お試しください。');
  }
}

/** The first message of each field's list (seed §8). */
export function firstMessages(errors: Record<string, unknown> | undefined): FieldErrors {
  const out: FieldErrors = {};
  for (const [field, messages] of Object.entries(errors ?? {})) {
    const first = Array.isArray(messages) ? messages[0] : messages;
    if (typeof first === 'string') out[field] = first;
  }
  return out;
}

async function toError(res: Response): Promise<ApiError> {
  let body: { message?: string; errors?: Record<string, unknown> } | undefined;
  try {
    body = (await res.json()) as typeof body;
  } catch {
    body = undefined;
  }
  const fallback =
    res.status >= 500
      ? 'サーバーでエラーが発生しました。時間をおいて再度お試しください。'
      : res.status === 401
        ? 'ログインしてください。'
        : 'リクエストを処理できませんでした。';
  // An administrator who has not enrolled in two-factor yet goes straight to enrolment.
  if (res.status === 403 && (body as { code?: string } | undefined)?.code === 'two_factor_enrollment_required') {
    if (!window.location.pathname.startsWith('/account/security')) window.location.assign('/account/security?enrol=1');
  }
  return new ApiError(res.status, body?.message ?? fallback, firstMessages(body?.errors), body);
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  signal?: AbortSignal;
}

export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const method = (options.method ?? 'GET').toUpperCase();
  const unsafe = UNSAFE.has(method);
  const send = async (): Promise<Response> => {
    const headers: Record<string, string> = { Accept: 'application/json' };
    let body: BodyInit | undefined;
    if (options.body instanceof FormData) body = options.body;
    else if (options.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    if (unsafe) {
      if (!readCookie('XSRF-TOKEN')) await initCsrf();
      headers['X-XSRF-TOKEN'] = readCookie('XSRF-TOKEN') ?? '';
    }
    try {
      return await fetch(path, { method, headers, body, credentials: 'include', cache: 'no-store', signal: options.signal });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') throw error;
      throw new ApiError(0, '通信に失敗しました。ネットワーク接続を確認してから再度お試しください。');
    }
  };
  let res = await send();
  if (res.status === 419 && unsafe) {
    await initCsrf();
    res = await send();
  }
  if (!res.ok) throw await toError(res);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** SWR's fetcher. */
export const fetcher = <T>(path: string) => api<T>(path);
