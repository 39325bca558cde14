import type { Redis } from 'ioredis';
import type { Logger } from '../lib/logger.ts';
import { AppError } from './errors.ts';

export interface RateLimitRule {
  name: string;
  limit: number;
  windowSeconds: number;
}

/**
 * Fixed-window counters in Redis, shared by every web process. When Redis is unreachable the
 * limiter lets the request through (and logs): sign-in must not depend on Redis being up.
 */
export function createRateLimiter(redis: Redis, log: Logger, prefix = 'shop:ratelimit') {
  return async function hit(rule: RateLimitRule, key: string): Promise<void> {
    const redisKey = `${prefix}:${rule.name}:${key}`;
    let count: number;
    let ttl: number;
    try {
      const result = await redis.multi().incr(redisKey).expire(redisKey, rule.windowSeconds, 'NX').ttl(redisKey).exec();
      count = Number(result?.[0]?.[1] ?? 0);
      ttl = Number(result?.[2]?.[1] ?? rule.windowSeconds);
    } catch (error) {
      log.warn('rate limiter unavailable; allowing request', { rule: rule.name, error: String(error) });
      return;
    }
    if (count > rule.limit) throw new AppError('too_many_requests', undefined, { retryAfter: Math.max(ttl, 1) });
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;
