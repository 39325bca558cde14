import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { serve } from '@hono/node-server';
import * as Sentry from '@sentry/node';
import { createApp } from './app.ts';
import { EnvError, env as readEnv } from './config/env.ts';
import { isEmbedded } from './db/orm.ts';
import { boot, type Mode } from './host/boot.ts';
import { createLogger } from './lib/logger.ts';
import { SMTP_TIMEOUTS } from './modules/mail/index.ts';

const mode = (process.argv[2] ?? 'all') as Mode;
if (!['all', 'web', 'worker'].includes(mode)) {
  console.error(`使い方 (usage): node src/main.ts [all|web|worker]`);
  process.exit(2);
}

let env: ReturnType<typeof readEnv>;
try {
  env = readEnv();
} catch (error) {
  if (error instanceof EnvError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

const log = createLogger(env.logLevel, { mode });
process.on('unhandledRejection', (reason) => {
  log.error('unhandled rejection', { error: reason });
  Sentry.captureException(reason);
});
process.on('uncaughtException', (error) => {
  // The process state is unknown after this: report, flush, and let the supervisor restart us.
  log.error('uncaught exception', { error });
  Sentry.captureException(error);
  void Sentry.close(2_000).finally(() => process.exit(1));
});

const webRoot = resolve(import.meta.dirname, '../dist/web');
let runtime: Awaited<ReturnType<typeof boot>>;
try {
  runtime = await boot(env, { mode, log, webRoot: existsSync(webRoot) ? webRoot : undefined });
} catch (error) {
  log.error('start-up failed', { error });
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
if (mode !== 'worker' && !env.isProduction) {
  // Development only, and loaded only here: production never imports src/dev.
  const { seedDemo } = await import('./dev/demo.ts');
  await seedDemo(runtime.deps.orm, runtime.deps.files, log);
}
if (isEmbedded(env)) log.info('using embedded PostgreSQL (PGlite); set DATABASE_URL for a server', { dataDir: env.dataDir });

let server: ReturnType<typeof serve> | undefined;
if (mode !== 'worker') {
  if (!existsSync(webRoot)) log.warn('dist/web is missing: run `npm run build` to serve the SPA');
  const app = createApp(runtime.deps);
  server = serve({ fetch: app.fetch, port: env.port }, (info) => {
    log.info('listening', { url: env.appUrl, port: info.port });
  });
}

/** How long SIGTERM waits for in-flight jobs before exiting anyway. */
const DRAIN_LIMIT_MS = 4 * Math.max(...Object.values(SMTP_TIMEOUTS));

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info('shutting down', { signal });
  // Long enough for an in-flight e-mail to finish even against a slow server (each SMTP phase may take
  // up to its 30 s limit): a send cut short is sent again later, a duplicate with the same Message-ID.
  const force = setTimeout(() => process.exit(1), DRAIN_LIMIT_MS);
  force.unref();
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  await runtime.stop();
  await Sentry.close(2_000);
  log.info('stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
