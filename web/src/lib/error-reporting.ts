// Only what the shop uses from Sentry is imported by name, so the bundle leaves out session replay,
// the feedback widget and the rest of the SDK (about 180 KiB of gzip as a namespace import).
import { browserTracingIntegration, captureException, init } from '@sentry/react';
import { maskTokens, maskTokensDeep } from '../../../src/lib/mask-tokens';
import type { AppConfig } from './config';

/**
 * Starts Sentry (main.tsx loads this module once the first page has drawn) and reports the errors
 * that happened before it was loaded. From then on uncaught errors and unhandled rejections are
 * reported by Sentry's global handlers, with nothing shown to the user.
 */
export function startErrorReporting(config: AppConfig & { sentryDsn: string }, earlier: unknown[]) {
  init({
    dsn: config.sentryDsn,
    environment: config.sentryEnvironment ?? 'released_production',
    tracesSampleRate: 0.2,
    integrations: [browserTracingIntegration()],
    dataCollection: { userInfo: true },
    // The tokens of e-mailed links (/reset-password/<token>, …/verify/<token>) never reach Sentry.
    beforeBreadcrumb: (breadcrumb) => maskTokensDeep(breadcrumb),
    beforeSend: (event) => maskTokensDeep(event),
    beforeSendTransaction: (event) => {
      if (event.transaction) event.transaction = maskTokens(event.transaction);
      return maskTokensDeep(event);
    },
  });
  for (const error of earlier) captureException(error);
}
