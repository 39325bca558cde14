import { ConnectionException, DriverException } from '@mikro-orm/core';
import { type Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { secureHeaders } from 'hono/secure-headers';
import { appModules } from './host/modules.ts';
import { apiDocsRoutes } from './http/api-docs.ts';
import type { AppDeps, AppEnv, AppModule } from './http/context.ts';
import { csrf } from './http/csrf.ts';
import { AppError, errorResponse, NOT_FOUND_MESSAGE } from './http/errors.ts';
import { apiAnswers, apiBodyLimit, closeAfterRefusedBody, requestContext, requestLog, resignCookies } from './http/middleware.ts';
import { QUEUE_DASHBOARD_PATH, queueDashboard } from './http/queue-dashboard.ts';
import { spaRoutes } from './http/spa.ts';
import { reportError } from './lib/error-reporting.ts';

const JSON_BODY_LIMIT = 1024 * 1024;
/** The built-in Stripe emulator's own paths (development without keys): its API, hosted page, controls. */
const EMULATOR_PATH = /^\/(v1|c\/pay|_emulator|receipts)\//;

/**
 * The HTTP application: middleware in order (Hono's layers, the same on Node and in `app.request()`),
 * each module's routes (in any order: their paths never overlap), one error handler.
 */
export function createApp(deps: AppDeps, modules: readonly AppModule[] = appModules) {
  const app = new Hono<AppEnv>();
  const exempt = modules.flatMap((m) => m.csrfExempt ?? []);
  const csrfExempt = new Set(exempt.filter((path) => typeof path === 'string'));
  const exemptPatterns = exempt.filter((path) => path instanceof RegExp);
  const uploads = modules.flatMap((m) => m.uploads ?? []);
  const { issue, verify } = csrf(deps.authSecret, {
    secure: deps.env.isProduction,
    sessionCookie: deps.sessionCookie,
    exempt: (path) =>
      csrfExempt.has(path) ||
      exemptPatterns.some((pattern) => pattern.test(path)) ||
      path.startsWith(`${QUEUE_DASHBOARD_PATH}/`) ||
      (deps.stripeEmulator !== undefined && EMULATOR_PATH.test(path)),
  });
  const sentryOrigin = deps.env.sentry.dsn ? new URL(deps.env.sentry.dsn).origin : undefined;

  app.use(requestContext(deps));
  app.use(requestLog);
  app.use(closeAfterRefusedBody);
  app.use(
    secureHeaders({
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
    }),
  );
  app.use('/api/*', apiAnswers(deps.changes));
  app.use('/api/*', apiBodyLimit(uploads, JSON_BODY_LIMIT));
  app.use(verify);
  // After the CSRF check, whose token is bound to the session cookie as the browser holds it.
  app.use('/api/*', resignCookies(deps.authSecret));

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
  reportError(error);
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
