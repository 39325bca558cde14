import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from './logger.ts';

export type RedisTarget = ({ url: string } | { path: string } | SentinelTarget) & { password?: string; db?: number };

interface SentinelTarget {
  sentinels: { host: string; port: number }[];
  name: string;
  sentinelPassword?: string;
}

/** After a failover the old primary answers READONLY: reconnecting asks the Sentinels for the new one. */
const reconnectOnReadOnly = (error: Error) => (error.message.startsWith('READONLY') ? 2 : false);

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export const REDIS_MISSING_MESSAGE = [
  'Redis に接続できません。Redis をインストールして起動するか、REDIS_URL を設定してください。',
  '  Debian/Ubuntu: sudo apt-get install redis-server   macOS: brew install redis   Docker: docker compose up redis',
  'Cannot reach Redis. Install and start it (see above), or set REDIS_URL to a running server.',
].join('\n');

export function connectRedis(target: RedisTarget, options: RedisOptions = {}): Redis {
  const base: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
    lazyConnect: false,
    ...options,
  };
  const auth = {
    ...(target.password !== undefined ? { password: target.password } : {}),
    ...(target.db !== undefined ? { db: target.db } : {}),
  };
  let client: Redis;
  if ('url' in target) client = new Redis(target.url, { ...base, ...auth });
  else if ('path' in target) client = new Redis({ path: target.path, ...base, ...auth });
  else {
    client = new Redis({
      sentinels: target.sentinels,
      name: target.name,
      ...(target.sentinelPassword !== undefined ? { sentinelPassword: target.sentinelPassword } : {}),
      // Sentinels tell of a switch of primary at once, instead of waiting for the old connection to fail.
      failoverDetector: true,
      sentinelRetryStrategy: (times: number) => Math.min(times * 200, 2_000),
      reconnectOnError: reconnectOnReadOnly,
      ...base,
      ...auth,
    });
  }
  client.on('error', () => {});
  return client;
}

/** Says where `target` points, for logs (no passwords). */
export function describeRedis(target: RedisTarget): string {
  if ('url' in target) {
    const url = new URL(target.url);
    url.password = '';
    url.username = '';
    return url.toString();
  }
  if ('path' in target) return target.path;
  return `sentinel ${target.name} via ${target.sentinels.map((s) => `${s.host}:${s.port}`).join(',')}`;
}

/** How often, at most, one connection's outage is logged again while it lasts. */
const OUTAGE_LOG_EVERY_MS = 10_000;
const outageReporters = new WeakMap<Redis, (error: Error) => void>();

/**
 * Logs a connection's outage as an on-call wants it: one warn line ("Redis unreachable; retrying",
 * with the address tried) when it starts and at most one per `everyMs` while it lasts, one info line
 * when it answers again. ioredis and BullMQ retry on their own and report every failed try (several a
 * second, a Sentinel answering included), which is no reason to page anyone.
 */
export function watchRedisOutages(
  client: Redis,
  log: Logger,
  fields: { component: string; address: string },
  everyMs = OUTAGE_LOG_EVERY_MS,
): void {
  let downSince: number | undefined;
  let warnedAt = 0;
  const failed = (error: Error) => {
    const now = Date.now();
    downSince ??= now;
    if (warnedAt !== 0 && now - warnedAt < everyMs) return;
    warnedAt = now;
    log.warn('Redis unreachable; retrying', {
      ...fields,
      error: error.message,
      downSeconds: Math.round((now - downSince) / 1000),
    });
  };
  client.on('error', failed);
  client.on('ready', () => {
    if (downSince === undefined) return;
    log.info('Redis reachable again', { ...fields, downSeconds: Math.round((Date.now() - downSince) / 1000) });
    downSince = undefined;
    warnedAt = 0;
  });
  outageReporters.set(client, failed);
}

/** An error a user of `client` saw (a BullMQ worker's `error` event): into the connection's outage log when watched. */
export function reportRedisError(client: Redis, error: Error, otherwise: (error: Error) => void): void {
  const report = outageReporters.get(client);
  if (report) report(error);
  else otherwise(error);
}

/** A connection for BullMQ workers: blocking commands, retried for ever (BullMQ requires it). */
export function connectWorkerRedis(target: RedisTarget): Redis {
  return connectRedis(target, { enableOfflineQueue: true, maxRetriesPerRequest: null });
}

export async function redisAnswers(target: RedisTarget): Promise<boolean> {
  const client = connectRedis(target, { retryStrategy: () => null, connectTimeout: 1_000, lazyConnect: true });
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

export async function evictionPolicy(client: Redis): Promise<string | undefined> {
  const info = await client.info('memory');
  return /maxmemory_policy:(\S+)/.exec(info)?.[1];
}

function evictionPolicyMessage(policy: string | undefined): string {
  const shown = policy ?? '(unknown)';
  return [
    `Redis の maxmemory-policy が ${shown} です。ジョブのキーが消されないよう noeviction にしてください:`,
    '  redis-cli CONFIG SET maxmemory-policy noeviction  (恒久的には redis.conf に「maxmemory-policy noeviction」と書き、CONFIG REWRITE するか再起動)',
    `Redis maxmemory-policy is ${shown}; the job queues need noeviction, or Redis may delete jobs under memory pressure.`,
    '  Fix: redis-cli CONFIG SET maxmemory-policy noeviction, and set "maxmemory-policy noeviction" in redis.conf to keep it.',
  ].join('\n');
}

export async function assertNoEviction(client: Redis): Promise<void> {
  const policy = await evictionPolicy(client);
  if (policy !== 'noeviction') throw new RedisPolicyError(evictionPolicyMessage(policy));
}

export class RedisPolicyError extends Error {
  override name = 'RedisPolicyError';
}

export function whenReady(client: Redis, ms = 5_000): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      resolve(false);
    }, ms);
    timer.unref();
    function onReady() {
      clearTimeout(timer);
      resolve(true);
    }
    client.once('ready', onReady);
  });
}

/** Replication is asynchronous and a failover may promote a replica lacking the newest writes. True without replicas. */
export function replicaWaiter(client: Redis, timeoutMs = 500): () => Promise<boolean> {
  let replicas = 0;
  let checkedAt = 0;
  return async () => {
    if (Date.now() - checkedAt > 10_000) {
      const info = await client.info('replication');
      replicas = Number(/connected_slaves:(\d+)/.exec(info)?.[1] ?? 0);
      checkedAt = Date.now();
    }
    if (replicas === 0) return true;
    const acknowledged = await client.wait(1, timeoutMs);
    if (acknowledged < 1) checkedAt = 0;
    return acknowledged >= 1;
  };
}
