import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What ties work to the request that caused it: the request id (the client's `X-Request-Id` when safe,
 * else generated), the signed-in user's id, and the Sentry trace to continue. Set around each request
 * and each job; read by the logger (every line carries `requestId`, `userId`), by the outbox (an event
 * stores the id and trace of the request or job that recorded it) and by Sentry (a tag).
 */
export interface RequestContext {
  requestId?: string;
  userId?: string;
  /** `sentry-trace` and `baggage` of the request, for the jobs it causes. */
  trace?: { sentryTrace?: string; baggage?: string };
}

const storage = new AsyncLocalStorage<RequestContext>();

export function withRequestContext<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

/** The context of the request or job running now (a mutable object: the user is set once known). */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}

/** `X-Request-Id` a client may choose: short and of safe characters; anything else is replaced. */
export const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{8,64}$/;
