import * as Sentry from '@sentry/node';
import { EnvError, env } from './config/env.ts';

// Loaded with `node --import` before anything else, so Sentry can instrument what follows.
try {
  const { sentry } = env();
  if (sentry.dsn) {
    Sentry.init({
      dsn: sentry.dsn,
      environment: sentry.environment,
      tracesSampleRate: 0.2,
      // The seed sends personal data by default (user, cookies, headers).
      dataCollection: { userInfo: true },
    });
  }
} catch (error) {
  if (!(error instanceof EnvError)) throw error;
  // main.ts reports the bad variables.
}
