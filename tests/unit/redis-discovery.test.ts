import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { resolveRedis } from '../../src/host/redis.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { connectRedis, evictionPolicy } from '../../src/lib/redis.ts';
import { TEST_REDIS_URL } from '../support/env.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'shop-redis-'));
const children: import('node:child_process').ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
});

it('uses REDIS_URL when it is set', async () => {
  const { target, child } = await resolveRedis(
    { redisUrl: TEST_REDIS_URL, dataDir, isProduction: false },
    createLogger('silent'),
  );
  expect(target).toEqual({ url: TEST_REDIS_URL });
  expect(child).toBeUndefined();
});

it('starts a private redis-server under DATA_DIR when nothing answers, never evicting', async () => {
  // Port 1 on loopback: nothing listens there.
  const { target, child } = await resolveRedis(
    { redisUrl: undefined, dataDir, isProduction: false },
    createLogger('silent'),
    'redis://127.0.0.1:1',
  );
  if (child) children.push(child);
  expect(target).toEqual({ path: join(dataDir, 'redis', 'redis.sock') });
  const client = connectRedis(target);
  await new Promise((resolve) => client.once('ready', resolve));
  try {
    expect(await client.ping()).toBe('PONG');
    expect(await evictionPolicy(client)).toBe('noeviction');
  } finally {
    client.disconnect();
  }
  // A second process finds the same private server instead of starting another.
  const again = await resolveRedis(
    { redisUrl: undefined, dataDir, isProduction: false },
    createLogger('silent'),
    'redis://127.0.0.1:1',
  );
  expect(again.child).toBeUndefined();
  expect(again.target).toEqual(target);
});
