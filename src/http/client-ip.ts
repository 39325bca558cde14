import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * The client's address. Behind a reverse proxy set TRUST_PROXY_HEADER (e.g. `x-forwarded-for`):
 * the last entry is the one our own proxy appended, so a client cannot forge it. Unset: the socket.
 */
export function clientIp(c: Context, trustHeader: string | undefined): string {
  if (trustHeader) {
    const value = c.req.header(trustHeader);
    const last = value?.split(',').pop()?.trim();
    if (last) return last;
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown'; // app.request() in tests has no socket
  }
}
