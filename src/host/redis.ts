import type { ChildProcess } from 'node:child_process';
import type { Env } from '../config/env.ts';
import type { Logger } from '../lib/logger.ts';
import { DEFAULT_REDIS_URL, REDIS_MISSING_MESSAGE, type RedisTarget, redisAnswers } from '../lib/redis.ts';

/**
 * Where Redis is: REDIS_URL; else 127.0.0.1:6379 if it answers; else, outside production, a private
 * redis-server under DATA_DIR (src/dev, loaded only then); else an error telling how to get Redis (SPEC §2).
 */
export async function resolveRedis(
  env: Pick<Env, 'redisUrl' | 'dataDir' | 'isProduction'>,
  log: Logger,
  defaultUrl = DEFAULT_REDIS_URL,
): Promise<{ target: RedisTarget; child?: ChildProcess }> {
  if (env.redisUrl) return { target: { url: env.redisUrl } };
  if (await redisAnswers({ url: defaultUrl })) return { target: { url: defaultUrl } };
  if (env.isProduction) throw new Error(REDIS_MISSING_MESSAGE);
  const { privateRedis } = await import('../dev/private-redis.ts');
  return privateRedis(env.dataDir, log);
}
