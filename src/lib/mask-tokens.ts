/**
 * E-mailed links carry their secret in the path (`/reset-password/<token>`,
 * `/api/users/registration/verify/<token>`, `/api/users/email-change/verify/<token>`) or as `token=`:
 * whoever reads a log line or a Sentry event must not be able to follow them. The segment after
 * `reset-password/` or `verify/`, and any `token=` value, become `[redacted]`.
 * Pure (no Node APIs): the SPA imports this file too, for its Sentry events.
 */
const TOKEN_SEGMENT = /(\/(?:reset-password|verify)\/)[^/?#\s"']+/gi;
const TOKEN_PARAM = /([?&;](?:token|code)=)[^&#\s"']+/gi;

export function maskTokens(text: string): string {
  return text.replace(TOKEN_SEGMENT, '$1[redacted]').replace(TOKEN_PARAM, '$1[redacted]');
}

/** Every string inside `value` (objects and arrays, a few levels deep) with its tokens masked, in place. */
export function maskTokensDeep<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return maskTokens(value) as T;
  if (!value || typeof value !== 'object' || depth > 8) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = maskTokensDeep(value[i], depth + 1);
    return value;
  }
  for (const [key, inner] of Object.entries(value)) {
    if (typeof inner === 'string' || (inner && typeof inner === 'object')) {
      try {
        (value as Record<string, unknown>)[key] = maskTokensDeep(inner, depth + 1);
      } catch {
        // a read-only property: left as it is
      }
    }
  }
  return value;
}
