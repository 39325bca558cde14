import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { redisSignInChallenges } from '../../src/modules/accounts/index.ts';
import { freePort } from '../support/ports.ts';

const live = new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true });
afterAll(() => live.quit());

describe('passkey sign-in challenges in Redis', () => {
  it('are given back once, and expire with the challenge', async () => {
    const challenges = redisSignInChallenges(live, `test-${process.pid}`);
    const expiresAt = new Date(Date.now() + 300_000);
    expect(await challenges.keep('id-1', '{"type":"authentication"}', expiresAt)).toBe(true);
    expect(await live.ttl(`test-${process.pid}:passkey-challenge:id-1`)).toBeGreaterThan(290);
    expect(await challenges.take('id-1')).toEqual({ value: '{"type":"authentication"}', expiresAt });
    expect(await challenges.take('id-1')).toBeNull();
    expect(await challenges.keep('id-2', 'x', new Date(Date.now() - 1000))).toBe(false);
  });

  it('answer "not kept" with Redis unreachable, so the plugin keeps its row and signing in still works', async () => {
    const down = new Redis({
      port: await freePort(),
      host: '127.0.0.1',
      lazyConnect: true,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
    down.on('error', () => undefined);
    const challenges = redisSignInChallenges(down, 'test');
    expect(await challenges.keep('id', 'x', new Date(Date.now() + 300_000))).toBe(false);
    expect(await challenges.take('id')).toBeNull();
    down.disconnect();
  });
});
