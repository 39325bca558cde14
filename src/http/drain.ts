import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';

/**
 * A process's shutdown as the HTTP side sees it: from `start()` on, /readyz answers 503 and every
 * answer closes its connection (decision 0024).
 */
export class Drain {
  #since: number | undefined;
  readonly #listeners: (() => void)[] = [];

  get draining(): boolean {
    return this.#since !== undefined;
  }

  start(): void {
    if (this.#since !== undefined) return;
    this.#since = Date.now();
    for (const listener of this.#listeners) listener();
  }

  onStart(listener: () => void): void {
    this.#listeners.push(listener);
  }
}

/** The paths a load balancer's health check asks, with or without a query. */
const HEALTH_CHECK = /^\/(?:healthz|readyz)(?:\?|$)/;

export interface HttpServer {
  server: Server;
  /** The requests being answered, as `METHOD /path` (logged when a shutdown cuts them). */
  inFlight(): string[];
  /** Stops accepting connections and resolves once the answers in flight are sent and every connection is closed. */
  close(): Promise<void>;
}

/**
 * The app on Node's HTTP server, with what a load balancer needs: health checks without a Host header,
 * and a drain that closes keep-alive connections after their current answer.
 */
export function createHttpServer(fetch: Parameters<typeof getRequestListener>[0], drain: Drain): HttpServer {
  const listener = getRequestListener(fetch);
  const inFlight = new Map<ServerResponse, string>();
  let closing = false;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    // HTTP/1.0 health checks (HAProxy's default `option httpchk`) carry no Host, and @hono/node-server
    // answers a request without one 400. Only these two paths get a stand-in; elsewhere a request
    // without Host is still refused, so no route sees a host the client did not send.
    if (req.headers.host === undefined && HEALTH_CHECK.test(req.url ?? '')) req.headers.host = 'localhost';
    inFlight.set(res, `${req.method} ${(req.url ?? '').split('?')[0]}`);
    res.once('close', () => {
      inFlight.delete(res);
      // An answer whose headers went out before the drain kept its connection open: once the server
      // no longer accepts, nobody should be sending on it.
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
    if (drain.draining) res.setHeader('Connection', 'close');
    void listener(req, res);
  });
  drain.onStart(() => {
    for (const res of inFlight.keys()) if (!res.headersSent) res.setHeader('Connection', 'close');
  });
  return {
    server,
    inFlight: () => [...inFlight.values()],
    close: () =>
      new Promise<void>((done) => {
        closing = true;
        server.close(() => done());
        server.closeIdleConnections();
      }),
  };
}
