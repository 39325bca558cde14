import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ChangeFeed } from '../db/changes.ts';
import { errorReporter } from '../lib/error-reporting.ts';
import { type RequestContext, SAFE_REQUEST_ID, withRequestContext } from '../lib/request-context.ts';
import { resignedCookieHeader } from '../lib/secrets.ts';
import type { AppDeps, AppEnv } from './context.ts';
import { AppError } from './errors.ts';
import { observeRequest } from './metrics.ts';

type Layer = MiddlewareHandler<AppEnv>;

/** One request id from the browser to the job (decision 0026); not Hono's `requestId`, whose rule for a client's id differs. */
export function requestContext(deps: AppDeps): Layer {
  // Sentry is initialised (src/instrument.ts, `node --import`) before the app is built, or not at all.
  const sentry = errorReporter();
  return (c, next) => {
    const given = c.req.header('x-request-id');
    const id = given && SAFE_REQUEST_ID.test(given) ? given : crypto.randomUUID();
    c.set('requestId', id);
    c.set('deps', deps);
    c.set('log', deps.log);
    const context: RequestContext = { requestId: id };
    const answer = async () => {
      await next();
      // On the final answer, whoever made it (a handler's own Response, the error handler, a static file).
      c.res.headers.set('X-Request-Id', id);
    };
    if (!sentry) return withRequestContext(context, answer);
    const trace = sentry.getTraceData();
    context.trace = { sentryTrace: trace['sentry-trace'], baggage: trace.baggage };
    return withRequestContext(context, () =>
      sentry.withIsolationScope((scope) => {
        scope.setTag('request_id', id);
        return answer();
      }),
    );
  };
}

/** Cookies a previous AUTH_SECRET signed reach better-auth signed under the current one (decision 0043). */
export function resignCookies(secret: string): Layer {
  return async (c, next) => {
    const header = c.req.raw.headers.get('cookie');
    const resigned = header ? resignedCookieHeader(header, secret) : undefined;
    if (resigned) c.req.raw.headers.set('cookie', resigned);
    await next();
  };
}

/** Probes a load balancer or Prometheus sends every few seconds: logged at debug, not as traffic. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/** Each request's duration in the metrics (by route pattern) and one log line (debug for probes). */
export const requestLog: Layer = async (c, next) => {
  const started = performance.now();
  await next();
  const seconds = (performance.now() - started) / 1000;
  observeRequest(c, seconds);
  // The logger masks the tokens of e-mailed links in every text field, the path included (lib/logger.ts).
  const fields = { method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(seconds * 1000) };
  if (PROBES.has(c.req.path)) c.get('log').debug('request', fields);
  else c.get('log').info('request', fields);
};

/** An answer given before the whole body was read: the rest is still on the wire, so the connection closes. */
export const closeAfterRefusedBody: Layer = async (c, next) => {
  await next();
  const hasBody = Number(c.req.header('content-length') ?? 0) > 0 || c.req.header('transfer-encoding') !== undefined;
  if (hasBody && c.res.status >= 400) c.res.headers.set('Connection', 'close');
};

/** The API's answers: `no-store`, and a change answers once this process's caches have heard of it. */
export function apiAnswers(changes: ChangeFeed | undefined): Layer {
  return async (c, next) => {
    await next();
    c.res.headers.set('Cache-Control', 'no-store');
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') await changes?.sync();
  };
}

/** Hono's bodyLimit: 1 MB of JSON, more for a picture upload (its route's own limit); the spec's 413. */
export function apiBodyLimit(uploads: readonly { path: RegExp; maxBytes: number }[], jsonBytes: number): Layer {
  const limitTo = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: () => {
        throw new AppError('payload_too_large');
      },
    });
  const json = limitTo(jsonBytes);
  const limits = uploads.map((u) => ({ path: u.path, limit: limitTo(u.maxBytes) }));
  return (c, next) => {
    // GET and HEAD carry no body; asking one for it (`c.req.raw.body`) would build a whole native Request.
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const upload = c.req.method === 'POST' ? limits.find((u) => u.path.test(c.req.path)) : undefined;
    return (upload?.limit ?? json)(c, next);
  };
}
