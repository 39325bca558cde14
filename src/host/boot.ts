import type { ChildProcess } from 'node:child_process';
import type { Redis } from 'ioredis';
import { startWorkers, type Workers } from '../../workers/index.ts';
import { authSecretFor, type Env } from '../config/env.ts';
import { ChangeFeed } from '../db/changes.ts';
import { db, ping } from '../db/kysely.ts';
import { applySessionLimits, type Em, initOrm, isEmbedded, type Orm } from '../db/orm.ts';
// Types only (erased): the emulator itself is imported below only when it is used, never in production.
import type { StripeEmulator } from '../dev/stripe-emulator/emulator.ts';
import { closeQueues, createQueues, type Queues } from '../events/queues.ts';
import { OutboxRelay } from '../events/relay.ts';
import type { AppDeps } from '../http/context.ts';
import { Drain } from '../http/drain.ts';
import { createRateLimiter } from '../http/rate-limit.ts';
import type { JobContext } from '../jobs/context.ts';
import { createLogger, type Logger } from '../lib/logger.ts';
import { countJobsOf, shopFiguresFrom } from '../lib/metrics.ts';
import {
  assertNoEviction,
  connectRedis,
  connectWorkerRedis,
  describeRedis,
  type RedisTarget,
  replicaWaiter,
  watchRedisOutages,
  whenReady,
} from '../lib/redis.ts';
import { acceptPreviousSecrets } from '../lib/secrets.ts';
import { createAuth, createSessionReader, redisSignInChallenges, staffNetworkRefusals } from '../modules/accounts/index.ts';
import { createPayments, scheduleNightlyReconciliation, seatsTaken } from '../modules/checkout/index.ts';
import { startWorkerHeartbeat } from '../modules/health/index.ts';
import { createMailer, type Mailer } from '../modules/mail/index.ts';
import { createFileStore } from '../storage/open-store.ts';
import { entities, migrateShop } from './modules.ts';
import { resolveRedis } from './redis.ts';
import { shopFigureSources } from './shop-figures.ts';

export type Mode = 'all' | 'web' | 'worker';

export interface Runtime {
  deps: AppDeps;
  relay: OutboxRelay;
  mailer: Mailer;
  workers?: Workers;
  /** The built-in Stripe emulator, when this process serves it (development without keys). */
  stripeEmulator?: StripeEmulator;
  /** A job context on a fresh EntityManager, as the workers build one. */
  jobContext(): JobContext;
  stop(): Promise<void>;
}

export interface BootOptions {
  mode: Mode;
  log?: Logger;
  webRoot?: string;
  /** BullMQ key prefix: tests give each run its own. */
  queuePrefix?: string;
  relayIntervalMs?: number;
}

/** Migrations under the migration lock, so several processes starting at once apply them once. */
async function migrateLocked(env: Env, orm: Orm, log: Logger) {
  const applied = await migrateShop(env, orm, { log });
  if (applied.length) log.info('migrations applied', { applied });
}

/** How often a process that cannot reach PostgreSQL or Redis at start tries again (and says so). */
const START_RETRY_MS = 2_000;

/**
 * Tries `attempt` until it succeeds, logging each failure: a process started before its database or
 * Redis waits for them (a supervisor restarting it in a loop would only add noise).
 */
async function untilReachable<T>(what: string, log: Logger, attempt: () => Promise<T>, pauseMs = START_RETRY_MS): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      const value = await attempt();
      if (tries > 1) log.info(`${what} に接続しました (${what} reachable); starting`, { tries });
      return value;
    } catch (error) {
      log.warn(`${what} に接続できません。${START_RETRY_MS / 1000} 秒後に再試行します (${what} unreachable; retrying)`, {
        tries,
        error: error instanceof Error ? error.message : String(error),
      });
      if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}

/** The ORM, once PostgreSQL answers. Embedded PGlite has nothing to wait for: its errors stop the start. */
function openDatabaseWhenReachable(env: Env, log: Logger): Promise<Orm> {
  if (isEmbedded(env)) return initOrm(env, entities);
  return untilReachable('PostgreSQL', log, async () => {
    if (env.databaseDirectUrl) await applySessionLimits(env.databaseDirectUrl, log);
    const orm = await initOrm(env, entities);
    try {
      await ping(orm.em.fork());
      return orm;
    } catch (error) {
      await orm.close(true).catch(() => undefined);
      throw error;
    }
  });
}

/** A connection whose outages are logged once per 10 s (src/lib/redis.ts). */
function watched(client: Redis, target: RedisTarget, log: Logger, component: string): Redis {
  watchRedisOutages(client, log, { component, address: describeRedis(target) });
  return client;
}

/** Builds the process: database (migrated), Redis, queues, auth, relay and, per mode, the workers. */
export async function boot(env: Env, options: BootOptions): Promise<Runtime> {
  const log = options.log ?? createLogger(env.logLevel, { instance: env.instanceId, mode: options.mode });
  const orm = await openDatabaseWhenReachable(env, log);
  // pool.end() waits for every checked-out connection (a job stuck on a hung query, say): give
  // closing the database a time limit.
  const closeOrm = () =>
    Promise.race([
      orm.close(true),
      new Promise((resolve) => setTimeout(resolve, 5_000).unref()).then(() => log.warn('database pool did not close in 5 s')),
    ]);
  const closers: (() => Promise<unknown> | unknown)[] = [closeOrm];
  try {
    if (options.mode !== 'worker') await migrateLocked(env, orm, log);
    const { target, child } = await resolveRedis(env, log);
    if (child) closers.push(() => child.kill('SIGTERM'));
    return await assemble(env, options, log, orm, target, closers, child);
  } catch (error) {
    for (const close of closers.reverse()) await close();
    throw error;
  }
}

type Closer = () => Promise<unknown> | unknown;

async function assemble(
  env: Env,
  options: BootOptions,
  log: Logger,
  orm: Orm,
  target: RedisTarget,
  closers: Closer[],
  _child: ChildProcess | undefined,
): Promise<Runtime> {
  const redis = await readyRedis(target, log, closers);
  const prefix = options.queuePrefix ?? 'shop';
  const queues: Queues = createQueues(redis, prefix);
  // The shop-wide gauges of /metrics (and of a worker's metrics port) read what every process shares.
  shopFiguresFrom(shopFigureSources(orm, redis, queues));
  countJobsOf(Object.keys(queues));
  closers.push(() => closeQueues(queues));
  const authSecret = acceptPreviousSecrets(authSecretFor(env), env.authPreviousSecrets);
  const auth = createAuth({
    db: orm.em.fork().getKysely() as never,
    secret: authSecret,
    baseUrl: env.appUrl,
    secureCookies: env.isProduction,
    signInChallenges: redisSignInChallenges(redis, prefix),
  });
  const payments = createPayments(env, authSecret);
  const stripeEmulator = await startEmulator(env, options, payments, closers);
  const files = await createFileStore(env, log.child({ component: 'file-store' }));
  closers.push(() => files.close());
  const mailer = createMailer({ smtpUrl: env.smtpUrl, from: env.mailFrom, dataDir: env.dataDir, log });
  closers.push(() => mailer.close());
  const relay = startRelay(orm, queues, log, options, redis, closers);

  const workers =
    options.mode === 'web'
      ? undefined
      : await startWorkerSide(target, { orm, env, mailer, authSecret, payments, files, log, redis, prefix, queues }, closers);

  const changes = await startChangeFeed(env, options, orm, log, closers);

  const deps: AppDeps = {
    env,
    orm,
    auth,
    changes,
    sessions: createSessionReader(orm, auth, authSecret, changes),
    sessionCookie: (await auth.$context).authCookies.sessionToken.name,
    redis,
    queues,
    log,
    rateLimit: createRateLimiter(redis, log, `${prefix}:ratelimit`),
    authSecret,
    payments,
    stripe: payments.stripe,
    seatsTaken,
    files,
    stripeEmulator,
    webRoot: options.webRoot,
    drain: new Drain(),
    staffNetworkRefused: staffNetworkRefusals(orm, redis, prefix, log),
  };
  return {
    deps,
    relay,
    mailer,
    workers,
    stripeEmulator,
    jobContext: () => ({
      em: orm.em.fork() as Em,
      env,
      mailer,
      log: log.child({ component: 'job' }),
      authSecret,
      stripe: payments.stripe,
      files,
    }),
    stop: stopper(closers, log),
  };
}

/** The shop's Redis, once it answers, and never one that may evict jobs (README, SPEC §2). */
async function readyRedis(target: RedisTarget, log: Logger, closers: Closer[]): Promise<Redis> {
  const redis: Redis = watched(connectRedis(target), target, log, 'redis');
  closers.push(() => redis.quit().catch(() => redis.disconnect()));
  // (Each try itself waits START_RETRY_MS for the connection, so no pause in between.)
  await untilReachable(
    'Redis',
    log,
    async () => {
      if (!(await whenReady(redis, START_RETRY_MS))) throw new Error(`no answer from Redis (${redis.status})`);
    },
    0,
  );
  await assertNoEviction(redis);
  return redis;
}

async function startEmulator(
  env: Env,
  options: BootOptions,
  payments: ReturnType<typeof createPayments>,
  closers: Closer[],
): Promise<StripeEmulator | undefined> {
  if (!payments.builtInEmulator || options.mode === 'worker') return undefined;
  const { createStripeEmulator } = await import('../dev/stripe-emulator/emulator.ts');
  const emulator = createStripeEmulator({
    publicUrl: env.appUrl,
    webhookUrl: `${env.appUrl}/api/stripe/webhook`,
    webhookSecret: payments.webhookSecret,
  });
  closers.push(() => emulator.close());
  return emulator;
}

/** The jobs' workers, their heartbeat and metrics port, and the nightly reconciliation's schedule. */
async function startWorkerSide(
  target: RedisTarget,
  {
    orm,
    env,
    mailer,
    authSecret,
    payments,
    files,
    log,
    redis,
    prefix,
    queues,
  }: {
    orm: Orm;
    env: Env;
    mailer: ReturnType<typeof createMailer>;
    authSecret: string;
    payments: ReturnType<typeof createPayments>;
    files: Awaited<ReturnType<typeof createFileStore>>;
    log: Logger;
    redis: Redis;
    prefix: string;
    queues: Queues;
  },
  closers: Closer[],
): Promise<Workers> {
  const workerRedis = watched(connectWorkerRedis(target), target, log, 'worker');
  const workers = startWorkers(
    workerRedis,
    { orm, env, mailer, authSecret, stripe: payments.stripe, files, log: log.child({ component: 'worker' }) },
    prefix,
  );
  closers.push(() => workerRedis.quit().catch(() => workerRedis.disconnect()));
  closers.push(() => workers?.close());
  const heartbeat = startWorkerHeartbeat({ orm, redis, prefix, log: log.child({ component: 'worker' }), id: env.instanceId });
  closers.push(() => heartbeat.stop());
  if (env.workerMetricsPort) {
    const { serveWorkerMetrics } = await import('./worker-metrics.ts');
    const server = await serveWorkerMetrics(env.workerMetricsPort, env.metricsToken, log);
    closers.push(() => new Promise((done) => server.close(done)));
  }
  // Every worker registers the nightly payment reconciliation; BullMQ makes one job per night.
  await scheduleNightlyReconciliation(queues.payments).catch((error) =>
    log.warn('could not schedule the nightly payment reconciliation', { error: String(error) }),
  );
  return workers;
}

/**
 * Web processes keep sessions, list totals and the catalogue in memory, current through change
 * notices (not on embedded PGlite: one connection, nothing to save; not with SHOP_CACHES=off, a
 * diagnostics setting under which every request queries).
 */
async function startChangeFeed(
  env: Env,
  options: BootOptions,
  orm: Orm,
  log: Logger,
  closers: Closer[],
): Promise<ChangeFeed | undefined> {
  if (options.mode !== 'worker' && env.databaseDirectUrl && env.caches) {
    const notifier = db(orm.em.fork() as Em);
    const feed = new ChangeFeed(env.databaseDirectUrl, log.child({ component: 'change-notices' }), (channel, payload) =>
      notifier.selectNoFrom((eb) => eb.fn('pg_notify', [eb.val(channel), eb.val(payload)]).as('sent')).execute(),
    );
    await feed.start();
    closers.push(() => feed.stop());
    return feed;
  }
  if (options.mode !== 'worker' && !env.caches) {
    log.warn('SHOP_CACHES=off: in-process caches bypassed, every request queries (diagnostics only)');
  }
  return undefined;
}

/** Closes what boot opened, newest first, once however often it is called. */
function stopper(closers: Closer[], log: Logger): () => Promise<void> {
  let stopped: Promise<void> | undefined;
  return () => {
    stopped ??= (async () => {
      for (const close of closers.reverse()) {
        const started = Date.now();
        try {
          await close();
          log.debug('closed', { what: close.toString().slice(0, 60), ms: Date.now() - started });
        } catch (error) {
          log.warn('error while closing', { error: String(error) });
        }
      }
    })();
    return stopped;
  };
}

function startRelay(orm: Orm, queues: Queues, log: Logger, options: BootOptions, redis: Redis, closers: Closer[]) {
  const relay = new OutboxRelay(
    orm,
    queues,
    log.child({ component: 'outbox-relay' }),
    options.relayIntervalMs,
    replicaWaiter(redis),
  );
  relay.start();
  closers.push(() => relay.stop());
  return relay;
}
