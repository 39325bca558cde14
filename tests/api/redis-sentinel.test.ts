import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvError, loadEnv } from '../../src/config/env.ts';
import { resolveRedis } from '../../src/host/redis.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { connectRedis } from '../../src/lib/redis.ts';
import { TestClient } from '../support/http-client.ts';
import { startRedisWithSentinel } from '../support/redis-sentinel.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { eventually } from '../support/wait.ts';

let redis: Awaited<ReturnType<typeof startRedisWithSentinel>>;
let smtp: TestSmtp;
let t: TestRuntime;

beforeAll(async () => {
  redis = await startRedisWithSentinel({ sentinelCount: 3 });
  smtp = await startSmtp();
  t = await startTestRuntime({
    mode: 'all',
    smtpUrl: smtp.url,
    env: {
      REDIS_SENTINELS: redis.sentinelsVariable,
      REDIS_SENTINEL_NAME: redis.name,
      // Replication is asynchronous: a job taken or retried on the old primary during the switch may be
      // gone from the promoted one (BullMQ: "Missing key for job"). The database still knows
      // (docs/decisions/0019-sweeper.md): the sweeper re-drives it after the grace period.
      SWEEP_GRACE_SECONDS: '3',
      SWEEP_EVERY_SECONDS: '1',
    },
  });
}, 90_000);
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
  await redis?.stop();
});

describe('Redis through Sentinel', () => {
  it('reads REDIS_SENTINELS and REDIS_SENTINEL_NAME, and refuses the addresses without the name', () => {
    const env = loadEnv({
      REDIS_SENTINELS: '10.0.0.1:26379, redis-b:26380',
      REDIS_SENTINEL_NAME: 'shop',
      REDIS_PASSWORD: 'pw',
      REDIS_SENTINEL_PASSWORD: 'spw',
      REDIS_DB: '3',
    });
    expect(env.redisSentinel).toEqual({
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: 'redis-b', port: 26380 },
      ],
      name: 'shop',
    });
    expect([env.redisPassword, env.redisSentinelPassword, env.redisDb]).toEqual(['pw', 'spw', 3]);
    expect(() => loadEnv({ REDIS_SENTINELS: '127.0.0.1:26379' })).toThrow(EnvError);
    expect(() => loadEnv({ REDIS_SENTINELS: 'no-port', REDIS_SENTINEL_NAME: 'x' })).toThrow(/REDIS_SENTINELS/);
    expect(() => loadEnv({ REDIS_DB: '16' })).toThrow(/REDIS_DB/);
  });

  it('finds the primary through the Sentinels, and follows it to the replica after a failover', async () => {
    const { target } = await resolveRedis(
      { ...loadEnv({ REDIS_SENTINELS: redis.sentinelsVariable, REDIS_SENTINEL_NAME: redis.name }), isProduction: true },
      createLogger('silent'),
    );
    const client = connectRedis(target);
    try {
      await eventually(async () => (await client.set('sentinel-test', 'before')) === 'OK', 10_000, 'a first write');
      expect(await redis.primary()).toBe(redis.primaryPort);
      const promoted = await redis.failover();
      expect(promoted).toBe(redis.replicaPort);
      // Writes go to the new primary (a write to the demoted one would fail with READONLY).
      await eventually(
        async () => (await client.set('sentinel-test', 'after').catch(() => undefined)) === 'OK',
        20_000,
        'a write after the failover',
      );
      // The connection may still be settling on the promoted server (its fail-fast commands are retried
      // by their callers): ask until it answers.
      expect(await eventually(async () => client.get('sentinel-test').catch(() => undefined), 10_000, 'a read')).toBe('after');
      expect(
        await eventually(async () => /role:master/.test(await client.info('replication')), 10_000, 'the promoted server'),
      ).toBe(true);
    } finally {
      client.disconnect();
    }
  }, 90_000);

  it('registrations during a failover all succeed, and each member gets exactly one verification mail', async () => {
    const emails: string[] = [];
    const statuses: number[] = [];
    const register = async (i: number) => {
      const email = `sentinel-${i}-${Date.now()}@example.jp`;
      emails.push(email);
      const res = await new TestClient(t.app, `10.77.${Math.floor(i / 200)}.${i % 200}`).post('/api/users/registration', {
        email,
        email_confirmation: email,
        last_name: '佐藤',
        first_name: '花子',
        affiliations: 5,
        affiliation_name: '〇〇病院',
        affiliation_other: '',
        distribution: true,
        password: 'kumo-umi-sora-42',
        password_confirmation: 'kumo-umi-sora-42',
      });
      statuses.push(res.status);
    };
    let i = 0;
    // Registrations keep coming while the primary is switched (both directions: it was switched once above).
    const failover = redis.failover();
    let done = false;
    void failover.finally(() => {
      done = true;
    });
    while (!done || i < 30) {
      await Promise.all([register(i++), register(i++)]);
      if (i > 400) break;
    }
    await failover;
    for (let k = 0; k < 10; k++) await register(i++);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    await eventually(
      async () => emails.every((email) => smtp.messages.some(smtp.to(email))),
      60_000,
      'one verification mail per registration',
    );
    for (const email of emails) {
      const mails = smtp.messages.filter(smtp.to(email));
      expect(mails.length, email).toBe(1);
    }
  }, 120_000);
});
