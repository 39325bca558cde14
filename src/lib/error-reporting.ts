import type * as SentrySdk from '@sentry/node';

/**
 * Sentry, when SENTRY_DSN is set: src/instrument.ts loads and initialises the SDK and hands it here.
 * Without a DSN the SDK is never loaded (it costs a noticeable part of start-up), and these do nothing.
 */
export type ErrorReporter = typeof SentrySdk;

let reporter: ErrorReporter | undefined;

export function setErrorReporter(sdk: ErrorReporter): void {
  reporter = sdk;
}

/** The initialised SDK, or undefined when errors are not reported. */
export function errorReporter(): ErrorReporter | undefined {
  return reporter;
}

export function reportError(error: unknown): void {
  reporter?.captureException(error);
}

/** Sends what is queued, waiting at most `timeoutMs`. */
export async function flushErrorReports(timeoutMs: number): Promise<void> {
  await reporter?.close(timeoutMs);
}
