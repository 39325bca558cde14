import type { Redis } from 'ioredis';
import type { Logger } from '../lib/logger.ts';
import { AppError } from './errors.ts';

export interface RateLimitRule {
  name: string;
  limit: number;
  windowSeconds: number;
}

/** An attempt counted in advance by `reserve`, in flight until it is settled one way or the other. */
export interface Reservation {
  /** Each rule's count including this attempt (empty: Redis was unavailable and nothing was counted). */
  counts: number[];
  /** It counts (a failed sign-in): it stays in the window. */
  confirm(): Promise<void>;
  /** It does not count (a success): its place is given back. */
  release(): Promise<void>;
}

/**
 * Counts one attempt on every key at once, or on none. `<key>` holds the window's failures plus the
 * attempts in flight, `<key>:inflight` the latter (expiring on its own if a process dies mid-check).
 * When a count would pass its limit every increment is taken back, and the answer says whether the
 * window is full of failures (refuse) or only of attempts in flight (`busy`: ask again shortly).
 * One script, so Redis serialises parallel attempts: the (limit + 1)th is never checked however many
 * arrive together. ARGV: per key its limit and window.
 */
const RESERVE = `
local counts = {}
for i, key in ipairs(KEYS) do
  local n = redis.call('INCR', key)
  if n == 1 or redis.call('TTL', key) < 0 then redis.call('EXPIRE', key, tonumber(ARGV[i * 2])) end
  redis.call('INCR', key .. ':inflight')
  redis.call('EXPIRE', key .. ':inflight', 60)
  counts[i] = n
  if n > tonumber(ARGV[i * 2 - 1]) then
    for j = 1, i do
      redis.call('DECR', KEYS[j])
      redis.call('DECR', KEYS[j] .. ':inflight')
    end
    local inflight = tonumber(redis.call('GET', key .. ':inflight') or '0')
    local busy = 0
    if n - 1 - inflight < tonumber(ARGV[i * 2 - 1]) then busy = 1 end
    return {0, redis.call('TTL', key), busy}
  end
end
table.insert(counts, 1, 1)
return counts
`;

/** Settles reserved attempts: ARGV[1] = 1 gives their counts back (successes), 0 keeps them (failures). */
const SETTLE = `
for _, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key .. ':inflight') or '0') > 0 then redis.call('DECR', key .. ':inflight') end
  if ARGV[1] == '1' and tonumber(redis.call('GET', key) or '0') > 0 then redis.call('DECR', key) end
end
return 1
`;

/** How long an attempt waits for attempts in flight to settle before it is refused anyway. */
const BUSY_WAIT_MS = 5_000;

/**
 * Fixed-window counters in Redis, shared by every web process (the rules: src/config/limits.ts).
 * `hit` counts an attempt and refuses it past the limit; `check` refuses without counting and
 * `count` counts without refusing. `reserve` counts first and refuses atomically, for limits that
 * count only failures: the attempt holds its place while it is checked, `release` gives it back when
 * it succeeded and `confirm` keeps it when it failed — so a burst of parallel attempts never checks
 * more than the limit, while an attempt that finds the window full only of others still in flight
 * waits for them to settle instead of being refused. When
 * Redis is unreachable the limiter lets requests through (and logs): signing in must not depend on
 * Redis being up.
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

  async function reserve(rules: readonly [RateLimitRule, string][]): Promise<Reservation> {
    const keys = rules.map(([rule, key]) => keyOf(rule, key));
    const args = rules.flatMap(([rule]) => [rule.limit, rule.windowSeconds]);
    const started = Date.now();
    for (;;) {
      let result: number[];
      try {
        result = (await redis.eval(RESERVE, keys.length, ...keys, ...args)) as number[];
      } catch (error) {
        log.warn('rate limiter unavailable; allowing request', { rules: rules.map(([r]) => r.name), error: String(error) });
        return { counts: [], confirm: async () => undefined, release: async () => undefined };
      }
      if (result[0] === 1) return reservation(keys, result.slice(1).map(Number));
      // Full of attempts still being checked, not of failures: they may yet succeed and give their places back.
      if (result[2] === 1 && Date.now() - started < BUSY_WAIT_MS) {
        await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
        continue;
      }
      throw refuse(Number(result[1]));
    }
  }

  function reservation(keys: string[], counts: number[]): Reservation {
    let settled = false;
    const settle = async (giveBack: boolean) => {
      if (settled) return;
      settled = true;
      try {
        await redis.eval(SETTLE, keys.length, ...keys, giveBack ? '1' : '0');
      } catch (error) {
        log.warn('rate limiter unavailable; attempt not settled', { error: String(error) });
      }
    };
    return { counts, confirm: () => settle(false), release: () => settle(true) };
  }

  return {
    count,
    reserve,
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
