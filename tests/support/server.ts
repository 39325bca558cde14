import { resolve } from 'node:path';
import { serve } from '@hono/node-server';
import { createApp } from '../../src/app.ts';
import { freePort } from './ports.ts';
import { startTestRuntime, type TestRuntimeOptions } from './runtime.ts';

export const WEB_ROOT = resolve(import.meta.dirname, '../../dist/web');

/** The built app (API + SPA + workers) listening on a free port, for browser tests. */
export async function startTestServer(options: TestRuntimeOptions & { port?: number } = {}) {
  const port = options.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  const t = await startTestRuntime({ mode: 'all', webRoot: WEB_ROOT, ...options, env: { APP_URL: baseUrl, ...options.env } });
  const server = serve({ fetch: createApp(t.runtime.deps).fetch, port, hostname: '127.0.0.1' });
  return {
    ...t,
    baseUrl,
    async stop() {
      await new Promise<void>((done) => {
        server.close(() => done());
        // Keep-alive connections (browsers, the Stripe emulator's webhook calls) would hold close() open.
        (server as import('node:http').Server).closeAllConnections?.();
      });
      await t.stop();
    },
  };
}
