import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';

/** From `start()` on, /readyz answers 503 and every answer closes its connection (decision 0024). */
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

const HEALTH_CHECK = /^\/(?:healthz|readyz)(?:\?|$)/;

export interface HttpServer {
  server: Server;
  inFlight(): string[];
  close(): Promise<void>;
}

export function createHttpServer(fetch: Parameters<typeof getRequestListener>[0], drain: Drain): HttpServer {
  const listener = getRequestListener(fetch);
  const inFlight = new Map<ServerResponse, string>();
  let closing = false;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    // HAProxy's HTTP/1.0 checks carry no Host, which @hono/node-server answers 400: only these paths get a stand-in.
    if (req.headers.host === undefined && HEALTH_CHECK.test(req.url ?? '')) req.headers.host = 'localhost';
    inFlight.set(res, `${req.method} ${(req.url ?? '').split('?')[0]}`);
    res.once('close', () => {
      inFlight.delete(res);
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
