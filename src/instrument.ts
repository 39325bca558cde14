import { EnvError, env } from './config/env.ts';
import { setErrorReporter } from './lib/error-reporting.ts';
import { maskTokens, maskTokensDeep } from './lib/mask-tokens.ts';

// Loaded with `node --import` before anything else, so Sentry can instrument what follows. Without a
// DSN the SDK is not even loaded (src/lib/error-reporting.ts).
try {
  const { sentry } = env();
  if (sentry.dsn) {
    const Sentry = await import('@sentry/node');
    Sentry.init({
      dsn: sentry.dsn,
      environment: sentry.environment,
      tracesSampleRate: 0.2,
      // The seed sends personal data by default (user, cookies, headers).
      dataCollection: { userInfo: true },
      // The tokens of e-mailed links (/reset-password/<token>, …/verify/<token>) never leave the server.
      beforeBreadcrumb: (breadcrumb) => maskTokensDeep(breadcrumb),
      beforeSend: (event) => maskTokensDeep(event),
      beforeSendTransaction: (event) => {
        if (event.transaction) event.transaction = maskTokens(event.transaction);
        return maskTokensDeep(event);
      },
    });
    setErrorReporter(Sentry);
  }
} catch (error) {
  if (!(error instanceof EnvError)) throw error;
  // main.ts reports the bad variables.
}
