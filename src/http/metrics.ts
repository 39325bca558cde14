import type { Context } from 'hono';
import { routePath } from 'hono/route';
import { httpRequestDuration } from '../lib/metrics.ts';
import type { AppEnv } from './context.ts';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Records a request's duration under its route pattern (`/api/licenses/:id`), never the raw path. */
export function observeRequest(c: Context<AppEnv>, seconds: number): void {
  let route: string;
  try {
    // After the chain, the route index is that of the handler that answered (not the last route that matched).
    route = routePath(c) || 'unmatched';
  } catch {
    route = 'unmatched';
  }
  httpRequestDuration.observe(
    { method: METHODS.has(c.req.method) ? c.req.method : 'OTHER', route, status: c.res.status },
    seconds,
  );
}
