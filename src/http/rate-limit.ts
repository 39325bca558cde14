import type { Redis } from 'ioredis';
import { japanTime } from '../lib/japan-time.ts';
import type { Logger } from '../lib/logger.ts';
import { AppError } from './errors.ts';

export interface RateLimitRule {
  name: string;
  limit: number;
  windowSeconds: number;
  /** What is limited, in the words of the refusal (「会員CSVのダウンロード」): it then states the limit and when it resets. */
  what?: string;
}

const inWords = (seconds: number) => (seconds % 3600 === 0 ? `${seconds / 3600}時間` : `${Math.round(seconds / 60)}分`);

/** 「会員CSVのダウンロードは1時間に10回までです。2026年11月28日 12:05（日本時間）以降にもう一度お試しください。」 */
function refusalOf(rule: RateLimitRule, ttl: number): string | undefined {
  if (!rule.what) return undefined;
  const reset = japanTime(new Date(Date.now() + ttl * 1000));
  return `${rule.what}は${inWords(rule.windowSeconds)}に${rule.limit}回までです。${reset}以降にもう一度お試しください。`;
}

export interface Reservation {
  /** Empty: Redis was unavailable and nothing was counted. */
  counts: number[];
  confirm(): Promise<void>;
  release(): Promise<void>;
}

/** One script, so Redis serialises parallel attempts: the (limit + 1)th is never checked however many arrive together. */
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

const SETTLE = `
for _, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key .. ':inflight') or '0') > 0 then redis.call('DECR', key .. ':inflight') end
  if ARGV[1] == '1' and tonumber(redis.call('GET', key) or '0') > 0 then redis.call('DECR', key) end
end
return 1
`;

const BUSY_WAIT_MS = 5_000;

/** `reserve` holds a place while an attempt is checked; unreachable Redis lets requests through: signing in must not depend on it. */
export function createRateLimiter(redis: Redis, log: Logger, prefix = 'shop:ratelimit') {
  const keyOf = (rule: RateLimitRule, key: string) => `${prefix}:${rule.name}:${key}`;
  const refuse = (ttl: number, rule?: RateLimitRule) =>
    new AppError('too_many_requests', rule && refusalOf(rule, ttl), { retryAfter: Math.max(ttl, 1) });

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
      if (now && now.count > rule.limit) throw refuse(now.ttl, rule);
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
