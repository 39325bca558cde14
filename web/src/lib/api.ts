/**
 * The one API client (seed §7): cookies always sent, nothing cached, the CSRF cookie fetched before
 * state-changing calls and refreshed once after a 419, 422 answers collected as one message per field.
 */

import { checkInputMessage } from '../../../src/lib/field-labels.ts';

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

/**
 * The 422 message the API gives (SPEC §6) and the seed's client-side affiliation-6 check keeps in its
 * 422-style result (seed §5). It is never shown: the screens say what to fix instead,
 * 「入力内容を確認してください。（メールアドレス、パスワード）」 from the fields named (issue 21).
 */
export const INVALID_INPUT_MESSAGE = '不正な値が入力されました。';

/** The shop answered 5xx (or a proxy in front of it did): the shop is down for now, not the member's line. */
const UNAVAILABLE_MESSAGE = 'ただいまサービスを利用できません。しばらくしてからもう一度お試しください。';
/** The browser knows it is offline. */
const OFFLINE_MESSAGE = 'インターネットに接続されていません。接続を確認してから、もう一度お試しください。';
/** The request never got an answer while the browser thinks it is online (a dropped connection, or the shop unreachable). */
export const NETWORK_MESSAGE = '通信できませんでした。インターネット接続を確認するか、しばらくしてからもう一度お試しください。';

/** A fetch that threw (no answer at all): offline and online failures are told apart. */
export function networkError(): ApiError {
  const offline = typeof navigator !== 'undefined' && navigator.onLine === false;
  return new ApiError(0, offline ? OFFLINE_MESSAGE : NETWORK_MESSAGE);
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function readCookie(name: string): string | undefined {
  const entry = document.cookie.split('; ').find((c) => c.startsWith(`${name}=`));
  return entry ? decodeURIComponent(entry.slice(name.length + 1)) : undefined;
}

async function initCsrf(): Promise<void> {
  let res: Response;
  try {
    res = await fetch('/api/csrf-token', { credentials: 'include', cache: 'no-store' });
  } catch (error) {
    console.warn('CSRFトークンの初期化に失敗しました。', error);
    throw networkError();
  }
  if (!res.ok) {
    console.warn('CSRFトークンの初期化に失敗しました。', res.status);
    throw res.status >= 500 ? new ApiError(res.status, UNAVAILABLE_MESSAGE) : await toError(res);
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
      ? UNAVAILABLE_MESSAGE
      : res.status === 401
        ? 'ログインしてください。'
        : 'リクエストを処理できませんでした。';
  // An administrator who has not enrolled in two-factor yet goes straight to enrolment.
  if (res.status === 403 && (body as { code?: string } | undefined)?.code === 'two_factor_enrollment_required') {
    if (!window.location.pathname.startsWith('/account/security')) window.location.assign('/account/security?enrol=1');
  }
  // A gateway's 502/504 (or any 5xx without our JSON) means the shop is down for now.
  const ours = typeof body?.message === 'string' && !(res.status === 502 || res.status === 504);
  // The API's generic 422 message becomes what to fix: the fields' names (a sharper message stays).
  const generic = res.status === 422 && body?.message === INVALID_INPUT_MESSAGE;
  const message = generic ? checkInputMessage(Object.keys(body?.errors ?? {})) : ours ? (body?.message as string) : fallback;
  return new ApiError(res.status, message, firstMessages(body?.errors), body);
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
      throw networkError();
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
