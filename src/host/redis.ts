import type { ChildProcess } from 'node:child_process';
import type { Env } from '../config/env.ts';
import type { Logger } from '../lib/logger.ts';
import { DEFAULT_REDIS_URL, REDIS_MISSING_MESSAGE, type RedisTarget, redisAnswers } from '../lib/redis.ts';

/**
 * Where Redis is: the primary Sentinel names (REDIS_SENTINELS); REDIS_URL; else 127.0.0.1:6379 if it answers; else, outside production, a private
 * redis-server under DATA_DIR (src/dev, loaded only then); else an error telling how to get Redis (SPEC §2).
 */
export async function resolveRedis(
  env: Pick<Env, 'redisUrl' | 'dataDir' | 'isProduction'> &
    Partial<Pick<Env, 'redisSentinel' | 'redisPassword' | 'redisSentinelPassword' | 'redisDb'>>,
  log: Logger,
  defaultUrl = DEFAULT_REDIS_URL,
): Promise<{ target: RedisTarget; child?: ChildProcess }> {
  const auth = {
    ...(env.redisPassword !== undefined ? { password: env.redisPassword } : {}),
    ...(env.redisDb !== undefined ? { db: env.redisDb } : {}),
  };
  if (env.redisSentinel) {
    const sentinelPassword = env.redisSentinelPassword;
    return { target: { ...env.redisSentinel, ...auth, ...(sentinelPassword !== undefined ? { sentinelPassword } : {}) } };
  }
  if (env.redisUrl) return { target: { url: env.redisUrl, ...auth } };
  if (await redisAnswers({ url: defaultUrl })) return { target: { url: defaultUrl } };
  if (env.isProduction) throw new Error(REDIS_MISSING_MESSAGE);
  const { privateRedis } = await import('../dev/private-redis.ts');
  return privateRedis(env.dataDir, log);
}
