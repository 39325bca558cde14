import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EnvError, env as readEnv } from './config/env.ts';
import type { Mode } from './host/boot.ts';
import type { HttpServer } from './http/drain.ts';
import { buildInfo } from './lib/build-info.ts';
import { flushErrorReports, reportError } from './lib/error-reporting.ts';
import { createLogger } from './lib/logger.ts';

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

const log = createLogger(env.logLevel, { instance: env.instanceId, mode });
// The first line comes before the module graph loads (seconds on a busy host), so a start is seen at once.
log.info('starting', { ...buildInfo(), pid: process.pid });
const { boot } = await import('./host/boot.ts');
process.on('unhandledRejection', (reason) => {
  log.error('unhandled rejection', { error: reason });
  reportError(reason);
});
process.on('uncaughtException', (error) => {
  // The process state is unknown after this: report, flush, and let the supervisor restart us.
  log.error('uncaught exception', { error });
  reportError(error);
  void flushErrorReports(2_000).finally(() => process.exit(1));
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
  await seedDemo(runtime.deps.orm, env.databaseDirectUrl, runtime.deps.files, log);
}
const { isEmbedded } = await import('./db/orm.ts');
if (isEmbedded(env)) log.info('using embedded PostgreSQL (PGlite); set DATABASE_URL for a server', { dataDir: env.dataDir });

let http: HttpServer | undefined;
if (mode !== 'worker') {
  if (!existsSync(webRoot)) log.warn('dist/web is missing: run `npm run build` to serve the SPA');
  const [{ createApp }, { createHttpServer }] = await Promise.all([import('./app.ts'), import('./http/drain.ts')]);
  http = createHttpServer(createApp(runtime.deps).fetch, runtime.deps.drain);
  http.server.listen(env.port, () => log.info('listening', { url: env.appUrl, port: env.port }));
}

/**
 * After /readyz turns 503, new connections are still answered this long, so that a load balancer has
 * a few health-check intervals to take this process out before it stops listening (decision 0024).
 */
const ACCEPT_AFTER_DRAIN_MS = Math.min(env.shutdownGraceMs / 3, 3_000);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  runtime.deps.drain.start();
  log.info('shutting down', { signal, graceMs: env.shutdownGraceMs, acceptMs: http ? ACCEPT_AFTER_DRAIN_MS : 0 });
  // Whatever is still running at the limit is cut. A job cut short is run again once its BullMQ lock
  // runs out; an e-mail cut mid-send is sent again with the same Message-ID (at-least-once).
  const force = setTimeout(() => {
    log.error('shutdown grace exceeded: exiting with work unfinished', {
      graceMs: env.shutdownGraceMs,
      requests: http?.inFlight() ?? [],
      jobs: runtime.workers?.active() ?? [],
    });
    process.exit(1);
  }, env.shutdownGraceMs);
  force.unref();
  // Workers take no new job from now on; the ones running finish (runtime.stop() waits for them).
  const jobsDone = runtime.workers?.close().catch((error) => log.warn('error while closing workers', { error: String(error) }));
  if (http) {
    await sleep(ACCEPT_AFTER_DRAIN_MS);
    await http.close();
  }
  await jobsDone;
  await runtime.stop();
  await flushErrorReports(2_000);
  log.info('stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
