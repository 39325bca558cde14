import { afterEach, describe, expect, it } from 'vitest';
import { inParallel, register, uniqueEmail, until, VERIFY_SUBJECT, verificationsReceived } from './support/flows.ts';
import { jobCounts, settle } from './support/ledger.ts';
import { type Services, startServices } from './support/services.ts';
import { type FaultShop, ShopProcess, startFaultShop } from './support/shop.ts';

let services: Services | undefined;
let shop: FaultShop | undefined;

afterEach(async () => {
  await shop?.stop();
  await services?.stop();
  shop = undefined;
  services = undefined;
});

const queued = async (s: FaultShop) => {
  const counts = await jobCounts(s);
  return (counts.mail?.waiting ?? 0) + (counts.mail?.delayed ?? 0) + (counts.mail?.prioritized ?? 0);
};

describe('Redis loses everything', () => {
  it('FLUSHALL with mail jobs pending and the workers stopped: every e-mail still goes out, once', async () => {
    services = await startServices();
    const { redis, smtp } = services;
    shop = await startFaultShop({ ...services });
    const s = shop;
    await Promise.all(s.workers.map((w) => w.stop()));
    const emails = Array.from({ length: 30 }, () => uniqueEmail('flush'));
    await inParallel(emails, 5, (email, i) => register(s, email, s.webs[i % 2]));
    // The web processes' relay has handed every event to Redis: 30 jobs wait for a worker.
    await until(async () => (await queued(s)) >= emails.length, 60_000, '30 mail jobs in Redis', s);
    await redis.flushAll();
    expect(await queued(s)).toBe(0);
    await Promise.all(s.workers.map((w) => w.start()));
    await until(async () => verificationsReceived(smtp, emails) === emails.length, 120_000, 'every verification e-mail', s);
    const mails = emails.map((to) => ({ to, subject: VERIFY_SUBJECT }));
    expect(await settle(s, smtp, { mails }, 60_000)).toEqual([]);
  });

  it('Redis restarted without AOF while e-mails wait for a retry: every e-mail still goes out, once', async () => {
    services = await startServices();
    const { redis, smtp } = services;
    shop = await startFaultShop({ ...services });
    const s = shop;
    smtp.setMode('tempfail');
    const emails = Array.from({ length: 20 }, () => uniqueEmail('restart'));
    await inParallel(emails, 5, (email, i) => register(s, email, s.webs[i % 2]));
    // Every e-mail has been tried once and waits in Redis for its retry.
    await until(async () => new Set(smtp.refusals.map((r) => r.to)).size >= emails.length, 120_000, 'a first attempt of each', s);
    await redis.restart();
    smtp.setMode('ok');
    await until(async () => verificationsReceived(smtp, emails) === emails.length, 180_000, 'every verification e-mail', s);
    const mails = emails.map((to) => ({ to, subject: VERIFY_SUBJECT }));
    expect(await settle(s, smtp, { mails }, 60_000)).toEqual([]);
  });

  it('a Redis that may evict (allkeys-lru) is refused at start by web and worker, saying how to fix it', async () => {
    services = await startServices({ redisPolicy: 'allkeys-lru' });
    const pgUrl = services.pg.urlOf('postgres');
    const env = {
      NODE_ENV: 'production',
      DATABASE_URL: pgUrl,
      REDIS_URL: services.redis.url,
      SMTP_URL: services.smtp.url,
      STRIPE_SECRET_KEY: 'sk_test_fault_suite',
      STRIPE_WEBHOOK_SECRET: 'whsec_fault_suite_secret',
      AUTH_SECRET: 'x'.repeat(40),
      DATA_DIR: '/tmp',
      PORT: '0',
    };
    for (const mode of ['web', 'worker'] as const) {
      const p = new ShopProcess(mode, mode, env, '/dev/null');
      try {
        await p.start(30_000).catch(() => undefined);
        await until(async () => !p.alive, 30_000, `${mode} to exit`);
        expect(p.child?.exitCode).not.toBe(0);
        expect(p.tail).toContain('noeviction');
        expect(p.tail).toMatch(/[\u3040-\u30ff]/);
      } finally {
        await p.kill();
      }
    }
  });
});
