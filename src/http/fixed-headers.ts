// The headers every answer carries, written on Node's own response (docs/decisions/0037-lean-requests.md).
import { ServerResponse } from 'node:http';
import { type Context, Hono, type MiddlewareHandler } from 'hono';

/**
 * The headers `middleware` adds to an answer, as it adds them (names and values), found by running it
 * once on a probe app: the list Node's response is given is the middleware's own, never a copy.
 */
export async function headersAddedBy(middleware: MiddlewareHandler): Promise<readonly [string, string][]> {
  const probe = new Hono();
  probe.use(middleware);
  probe.get('/', (c) => c.body(null, 204));
  const answer = await probe.request('/');
  return [...answer.headers];
}

/**
 * Node's response for this request when it came through @hono/node-server (undefined for
 * `app.request()`, the tests' in-process path). Headers set on it before the handler runs go out with
 * whatever answer is written — the handler's, the error handler's, node-server's own 500 — without
 * the undici `Headers` an answer's own headers cost (a dozen validated sets per request).
 */
export function nodeResponse(c: Context): ServerResponse | undefined {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  return outgoing instanceof ServerResponse ? outgoing : undefined;
}
