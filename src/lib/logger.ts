import pino, { type DestinationStream, type Logger as Pino } from 'pino';
import { maskTokens } from './mask-tokens.ts';
import { currentRequest } from './request-context.ts';

type Level = 'debug' | 'info' | 'warn' | 'error';

/** Our callers' shape: message first, fields second (pino's own order is the reverse). */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(bindings: Record<string, unknown>): Logger;
}

/** Secrets never reach a log line, wherever they sit in the fields. */
const REDACTED_PATHS = [
  'password',
  'new_password',
  'old_password',
  'password_confirmation',
  'new_password_confirmation',
  'token',
  'cookie',
  'authorization',
  'secret',
  '*.password',
  '*.new_password',
  '*.old_password',
  '*.token',
  '*.cookie',
  '*.authorization',
  '*.secret',
  'headers.cookie',
  'headers.authorization',
  'headers["set-cookie"]',
  '*.headers.cookie',
  '*.headers.authorization',
];

function adapt(log: Pino): Logger {
  return {
    debug: (msg, fields) => log.debug(fields ?? {}, msg),
    info: (msg, fields) => log.info(fields ?? {}, msg),
    warn: (msg, fields) => log.warn(fields ?? {}, msg),
    error: (msg, fields) => log.error(fields ?? {}, msg),
    child: (bindings) => adapt(log.child(bindings)),
  };
}

/**
 * Structured logs with pino: one JSON object per line — `time` (ISO), `level` (its name), `msg`,
 * the bindings (a process's `instance` and `mode`), the request or job's `requestId` and `userId`, and the fields — info and below on stdout, warn and error on stderr. Errors under
 * `error` or `err` are serialised with their stack and cause; passwords, tokens, cookies and
 * `authorization` are redacted, and so are the tokens of e-mailed links in any top-level text field.
 */
export function createLogger(
  level: Level | 'silent' = 'info',
  bindings: Record<string, unknown> = {},
  destination?: DestinationStream,
): Logger {
  const stream =
    destination ??
    pino.multistream(
      [
        { level: 'debug', stream: pino.destination({ fd: 1, sync: true }) },
        { level: 'warn', stream: pino.destination({ fd: 2, sync: true }) },
      ],
      { dedupe: true },
    );
  const log = pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        // A path or URL in any field loses its e-mailed token (src/lib/mask-tokens.ts).
        log: (fields) => {
          for (const [key, value] of Object.entries(fields)) if (typeof value === 'string') fields[key] = maskTokens(value);
          return fields;
        },
      },
      serializers: { error: pino.stdSerializers.errWithCause, err: pino.stdSerializers.errWithCause },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // Every line written while a request or a job runs names it (src/lib/request-context.ts).
      mixin: () => {
        const context = currentRequest();
        if (!context) return {};
        return {
          ...(context.requestId ? { requestId: context.requestId } : {}),
          ...(context.userId ? { userId: context.userId } : {}),
        };
      },
    },
    stream,
  );
  return adapt(Object.keys(bindings).length ? log.child(bindings) : log);
}
