import { ConnectionException, DriverException } from '@mikro-orm/core';
import * as Sentry from '@sentry/node';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { secureHeaders } from 'hono/secure-headers';
import { appModules } from './host/modules.ts';
import { apiDocsRoutes } from './http/api-docs.ts';
import type { AppDeps, AppEnv, AppModule } from './http/context.ts';
import { csrf } from './http/csrf.ts';
import { AppError, errorResponse, NOT_FOUND_MESSAGE } from './http/errors.ts';
import { headersAddedBy, nodeResponse } from './http/fixed-headers.ts';
import { observeRequest } from './http/metrics.ts';
import { QUEUE_DASHBOARD_PATH, queueDashboard } from './http/queue-dashboard.ts';
import { spaRoutes } from './http/spa.ts';
import { type RequestContext, SAFE_REQUEST_ID, withRequestContext } from './lib/request-context.ts';

const JSON_BODY_LIMIT = 1024 * 1024;
/** The built-in Stripe emulator's own paths (development without keys): its API, hosted page, controls. */
const EMULATOR_PATH = /^\/(v1|c\/pay|_emulator|receipts)\//;

/**
 * The HTTP application: middleware in order, each module's routes (in any order: their paths never
 * overlap), one error handler.
 */
export function createApp(deps: AppDeps, modules: readonly AppModule[] = appModules) {
  const app = new Hono<AppEnv>();
  const csrfExempt = new Set(modules.flatMap((m) => m.csrfExempt ?? []));
  const uploads = modules.flatMap((m) => m.uploads ?? []);
  const { issue, verify } = csrf(deps.authSecret, {
    secure: deps.env.isProduction,
    sessionCookie: deps.sessionCookie,
    exempt: (path) =>
      csrfExempt.has(path) ||
      path.startsWith(`${QUEUE_DASHBOARD_PATH}/`) ||
      (deps.stripeEmulator !== undefined && EMULATOR_PATH.test(path)),
  });
  const sentryOrigin = deps.env.sentry.dsn ? new URL(deps.env.sentry.dsn).origin : undefined;

  // Sentry is initialised (src/instrument.ts, `node --import`) before the app is built, or not at all.
  const sentry = Sentry.getClient() !== undefined;

  // Hono's security headers, applied by the one middleware below (its own layer cost a dispatch).
  const secure = secureHeaders({
    strictTransportSecurity: 'max-age=31536000; includeSubDomains',
    xFrameOptions: 'DENY',
    xContentTypeOptions: 'nosniff',
    referrerPolicy: 'strict-origin-when-cross-origin',
    // A page with a policy of its own keeps it (the API reference allows its script's nonce).
    overwrite: false,
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:', 'blob:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'", ...(sentryOrigin ? [sentryOrigin] : [])],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  });

  // On Node (not app.request): secureHeaders' very headers, set on Node's response before the handler
  // runs (fixed-headers.ts). Until the probe has answered (microseconds after start), and in process,
  // secureHeaders itself sets them on the answer.
  let fixedHeaders: readonly [string, string][] | undefined;
  headersAddedBy(secure).then(
    (headers) => {
      fixedHeaders = headers;
    },
    () => undefined,
  );

  // Bodies: 1 MB of JSON, more for a picture upload (its route's own limit).
  const limitTo = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: () => {
        throw new AppError('payload_too_large');
      },
    });
  const jsonLimit = limitTo(JSON_BODY_LIMIT);
  const uploadLimits = uploads.map((u) => ({ path: u.path, limit: limitTo(u.maxBytes) }));

  // Every request, in one middleware (each layer costs a closure, a promise and a dispatch; measured in
  // docs/decisions/0037-lean-requests.md):
  // - One request id from the browser to the job (src/lib/request-context.ts): the client's when safe,
  //   echoed, on every log line, stored with the events the request records, carried into their jobs
  //   (and, with Sentry on, tagged on its events and continuing its trace).
  // - An error answered before the whole body was read (413, 401 on a big upload, an 11th file…): the
  //   rest of the body is still on the wire, so the connection cannot carry another request.
  // - Every security header (Hono's secureHeaders) and, on the API, `Cache-Control: no-store`; a request
  //   that may have changed data answers once this process's caches have heard of it, so the client's
  //   next request never sees what it just changed as it was.
  // - Its duration in the metrics and one log line (inside the request context: it carries the id).
  // - An unsafe request (not GET, HEAD, OPTIONS): its body limited (on the API) and its CSRF token
  //   checked before any route, as their own layers did; a safe one skips both without a dispatch.
  app.use((c, next) => {
    const started = performance.now();
    const given = c.req.header('x-request-id');
    const id = given && SAFE_REQUEST_ID.test(given) ? given : crypto.randomUUID();
    c.set('requestId', id);
    c.set('deps', deps);
    // `user` stays unset (undefined) until a guard reads the session.
    c.set('log', deps.log);
    const path = c.req.path;
    const api = path.startsWith('/api/') || path === '/api';
    const node = fixedHeaders && nodeResponse(c);
    if (node && fixedHeaders) {
      for (const [name, value] of fixedHeaders) node.setHeader(name, value);
      node.setHeader('X-Request-Id', id);
      // The API's one Cache-Control: no handler under /api sets its own (it would be written over this one).
      if (api) node.setHeader('Cache-Control', 'no-store');
    } else c.header('X-Request-Id', id);
    const context: RequestContext = { requestId: id };
    let inner: () => Promise<void> = next;
    const method = c.req.method;
    if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') {
      const routes = next;
      const checked = async () => {
        await verify(c, routes);
      };
      // On the API, the body is limited first: asking a GET for one (`c.req.raw.body`) would build a
      // whole native Request, so only these are limited.
      const upload = api && method === 'POST' ? uploadLimits.find((u) => u.path.test(path)) : undefined;
      const limit = upload?.limit ?? jsonLimit;
      const guarded = api ? () => limit(c, checked) : checked;
      // A refusal here (413, 419) is answered by the error handler, as Hono answers one thrown in a
      // layer of its own, and this middleware still finishes the answer (headers, metrics, log line).
      inner = async () => {
        try {
          await guarded();
        } catch (error) {
          c.res = handleError(error, c);
        }
      };
    }
    if (sentry) {
      const trace = Sentry.getTraceData();
      context.trace = { sentryTrace: trace['sentry-trace'], baggage: trace.baggage };
      const downstream = inner;
      inner = () =>
        Sentry.withIsolationScope((scope) => {
          scope.setTag('request_id', id);
          return downstream();
        });
    }
    return withRequestContext(context, async () => {
      if (node) await inner();
      else await secure(c, inner);
      if (api) {
        // On the answer's own headers: `c.header()` after the handler would rebuild the whole response
        // (a native Response and a stream of its body) just to add one header.
        if (!node) c.res.headers.set('Cache-Control', 'no-store');
        if (c.req.method !== 'GET' && c.req.method !== 'HEAD') await deps.changes?.sync();
      }
      const hasBody = Number(c.req.header('content-length') ?? 0) > 0 || c.req.header('transfer-encoding') !== undefined;
      if (hasBody && c.res.status >= 400) c.res.headers.set('Connection', 'close');
      const seconds = (performance.now() - started) / 1000;
      observeRequest(c, seconds);
      // The logger masks the tokens of e-mailed links in every text field, the path included (lib/logger.ts).
      c.get('log').info('request', {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round(seconds * 1000),
      });
    });
  });

  app.get('/api/csrf-token', issue);
  for (const module of modules) {
    if (module.api) app.route('/api', module.api);
    if (module.root) app.route('/', module.root);
  }
  app.route('/api', apiDocsRoutes(modules, deps.sessionCookie));
  if (deps.stripeEmulator) app.route('/', deps.stripeEmulator.app);
  const spa = deps.webRoot
    ? spaRoutes(deps.webRoot, {
        sentryDsn: deps.env.sentry.dsn,
        sentryEnvironment: deps.env.sentry.environment,
        checkoutOrigin: deps.payments.checkoutOrigin,
      })
    : undefined;
  app.route(QUEUE_DASHBOARD_PATH, queueDashboard(deps.queues, { appOrigin: new URL(deps.env.appUrl).origin, spa }));
  app.all('/api/*', () => {
    throw new AppError('not_found');
  });
  if (spa) app.route('/', spa);

  app.notFound((c) => c.json({ message: NOT_FOUND_MESSAGE }, 404));
  app.onError(handleError);
  return app;
}

/** Every error a request ends in, as its answer: the spec's shapes, 503 for a lost database, else a logged 500. */
function handleError(error: unknown, c: Context<AppEnv>): Response {
  if (error instanceof AppError) return errorResponse(c, error);
  if (error instanceof HTTPException) {
    const status = error.status;
    const message = status === 413 ? '送信されたデータが大きすぎます。' : 'リクエストを処理できませんでした。';
    return c.json({ message }, status);
  }
  if (isDatabaseUnavailable(error)) {
    c.var.log?.error('database unavailable', { error });
    return errorResponse(c, new AppError('unavailable'));
  }
  c.var.log?.error('unhandled error', { error });
  Sentry.captureException(error);
  return c.json({ message: 'サーバーでエラーが発生しました。時間をおいて再度お試しください。' }, 500);
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '53300']);

/** The database is down or unreachable (the driver's error, or one wrapping it): 503, so clients and Stripe retry. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  if (error instanceof ConnectionException) return true;
  const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
  if (
    typeof message === 'string' &&
    /Connection terminated|terminating connection|connect ECONNREFUSED|does not allow connections|not queryable|timeout exceeded when trying to connect|the database system is (starting up|shutting down)|is not currently accepting connections/i.test(
      message,
    )
  ) {
    return true;
  }
  return error instanceof DriverException ? isDatabaseUnavailable(cause, depth + 1) : isDatabaseUnavailable(cause, depth + 1);
}
