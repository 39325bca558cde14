import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../lib/logger.ts';
import { REDIS_MISSING_MESSAGE, type RedisTarget, redisAnswers } from '../lib/redis.ts';

/**
 * Development without REDIS_URL and nothing on 127.0.0.1:6379: a private redis-server (if installed)
 * on a Unix socket under DATA_DIR, never evicting, with an append-only file. Never used in production.
 */
export async function privateRedis(dataDir: string, log: Logger): Promise<{ target: RedisTarget; child?: ChildProcess }> {
  const dir = join(dataDir, 'redis');
  const path = join(dir, 'redis.sock');
  if (await redisAnswers({ path })) return { target: { path } };
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
    if (await redisAnswers({ path })) {
      log.info('started a private redis-server', { socket: path });
      return { target: { path }, child };
    }
    await sleep(100);
  }
  child.kill();
  throw new Error(REDIS_MISSING_MESSAGE);
}
