import type { Redis } from 'ioredis';
import type { Logger } from '../lib/logger.ts';
import { AppError } from './errors.ts';

export interface RateLimitRule {
  name: string;
  limit: number;
  windowSeconds: number;
}

/**
 * Fixed-window counters in Redis, shared by every web process (the rules: src/config/limits.ts).
 * `hit` counts an attempt and refuses it past the limit; `check` refuses without counting and
 * `count` counts without refusing, for limits that count only failures. When Redis is unreachable
 * the limiter lets requests through (and logs): signing in must not depend on Redis being up.
 */
export function createRateLimiter(redis: Redis, log: Logger, prefix = 'shop:ratelimit') {
  const keyOf = (rule: RateLimitRule, key: string) => `${prefix}:${rule.name}:${key}`;
  const refuse = (ttl: number) => new AppError('too_many_requests', undefined, { retryAfter: Math.max(ttl, 1) });

  /** Adds one; the count after it and the seconds left in the window (null: Redis is unavailable). */
  async function count(rule: RateLimitRule, key: string): Promise<{ count: number; ttl: number } | null> {
    const redisKey = keyOf(rule, key);
    try {
      const result = await redis.multi().incr(redisKey).expire(redisKey, rule.windowSeconds, 'NX').ttl(redisKey).exec();
      return { count: Number(result?.[0]?.[1] ?? 0), ttl: Number(result?.[2]?.[1] ?? rule.windowSeconds) };
    } catch (error) {
      log.warn('rate limiter unavailable; allowing request', { rule: rule.name, error: String(error) });
      return null;
    }
  }

  return {
    count,
    async hit(rule: RateLimitRule, key: string): Promise<void> {
      const now = await count(rule, key);
      if (now && now.count > rule.limit) throw refuse(now.ttl);
    },
    async check(rule: RateLimitRule, key: string): Promise<void> {
      const redisKey = keyOf(rule, key);
      let result: [Error | null, unknown][] | null;
      try {
        result = await redis.multi().get(redisKey).ttl(redisKey).exec();
      } catch (error) {
        log.warn('rate limiter unavailable; allowing request', { rule: rule.name, error: String(error) });
        return;
      }
      if (Number(result?.[0]?.[1] ?? 0) >= rule.limit) throw refuse(Number(result?.[1]?.[1] ?? rule.windowSeconds));
    },
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;
