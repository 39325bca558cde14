import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis, type RedisOptions } from 'ioredis';
import type { Env } from '../config/env.ts';
import type { Logger } from './logger.ts';

export type RedisTarget = { url: string } | { path: string };

const DEFAULT_URL = 'redis://127.0.0.1:6379';

export const REDIS_MISSING_MESSAGE = [
  'Redis に接続できません。Redis をインストールして起動するか、REDIS_URL を設定してください。',
  '  Debian/Ubuntu: sudo apt-get install redis-server   macOS: brew install redis   Docker: docker compose up redis',
  'Cannot reach Redis. Install and start it (see above), or set REDIS_URL to a running server.',
].join('\n');

/** A connection for requests and producers: fails fast instead of queueing while Redis is down. */
export function connectRedis(target: RedisTarget, options: RedisOptions = {}): Redis {
  const base: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
    lazyConnect: false,
    ...options,
  };
  const client = 'url' in target ? new Redis(target.url, base) : new Redis({ path: target.path, ...base });
  client.on('error', () => {
    // Reconnection is automatic; callers see failures on their own commands.
  });
  return client;
}

/** A connection for BullMQ workers: blocking commands, retried for ever (BullMQ requires it). */
export function connectWorkerRedis(target: RedisTarget): Redis {
  return connectRedis(target, { enableOfflineQueue: true, maxRetriesPerRequest: null });
}

async function answers(target: RedisTarget): Promise<boolean> {
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

/**
 * Where Redis is: REDIS_URL; else 127.0.0.1:6379 if it answers; else a private redis-server under
 * DATA_DIR (if installed); else an error telling how to get Redis (SPEC §2).
 */
export async function resolveRedis(
  env: Pick<Env, 'redisUrl' | 'dataDir'>,
  log: Logger,
  defaultUrl = DEFAULT_URL,
): Promise<{ target: RedisTarget; child?: ChildProcess }> {
  if (env.redisUrl) return { target: { url: env.redisUrl } };
  if (await answers({ url: defaultUrl })) return { target: { url: defaultUrl } };
  const dir = join(env.dataDir, 'redis');
  const path = join(dir, 'redis.sock');
  if (await answers({ path })) return { target: { path } };
  if (spawnSync('redis-server', ['--version']).status !== 0) throw new Error(REDIS_MISSING_MESSAGE);
  mkdirSync(dir, { recursive: true });
  const child = spawn(
    'redis-server',
    [
      '--port',
      '0',
      '--unixsocket',
      path,
      '--unixsocketperm',
      '700',
      '--dir',
      dir,
      '--maxmemory-policy',
      'noeviction',
      '--appendonly',
      'yes',
      '--save',
      '',
    ],
    { stdio: 'ignore' },
  );
  child.unref();
  for (let i = 0; i < 50; i++) {
    if (await answers({ path })) {
      log.info('started a private redis-server', { socket: path });
      return { target: { path }, child };
    }
    await sleep(100);
  }
  child.kill();
  throw new Error(REDIS_MISSING_MESSAGE);
}

/** Redis must never evict BullMQ's keys. */
export async function evictionPolicy(client: Redis): Promise<string | undefined> {
  const info = await client.info('memory');
  return /maxmemory_policy:(\S+)/.exec(info)?.[1];
}
