/**
 * A failure that no retry can mend (e.g. the mail server refused the recipient for good: SMTP 5xx).
 * The worker turns it into BullMQ's UnrecoverableError, so the job stops at once instead of spending
 * its retry budget; anything else thrown by a handler counts as temporary and is retried.
 */
export class PermanentJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentJobError';
  }
}

export const isPermanent = (error: unknown): error is PermanentJobError =>
  error instanceof PermanentJobError || (error instanceof Error && error.name === 'PermanentJobError');
