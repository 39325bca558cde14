import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db as kysely } from '../../src/db/kysely.ts';
import type { Em } from '../../src/db/orm.ts';
import { transact } from '../../src/events/outbox.ts';
import { createUser } from '../../src/modules/accounts/index.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

// Issue 30 items 7-10: the notice cap, the two-factor escalation, the zxcvbn floor and recovery codes.
let t: TestRuntime;
let n = 0;
const PASSWORD = 'quiet-meadow-7319';
/** Each call its own network, so only the per-account limits meet. */
const client = () => new TestClient(t.app, `10.93.${++n % 250}.${1 + Math.floor(n / 250)}`);

beforeAll(async () => {
  t = await startTestRuntime();
}, 60_000);
afterAll(async () => t?.stop());

async function member(email: string) {
  return transact(t.runtime.deps.orm.em as Em, (tx) =>
    createUser(tx, { email, password: PASSWORD, lastName: '制限', firstName: '花子', emailVerified: true }),
  );
}

const redisKey = (rule: string, key: string) => `${t.prefix}:ratelimit:${rule}:${key}`;

async function eventsOf(name: string, userId: string) {
  const rows = await kysely(t.runtime.deps.orm.em.fork() as Em)
    .selectFrom('outbox_events')
    .select('payload')
    .where('name', '=', name)
    .execute();
  return rows.filter((row) => (row.payload as { userId?: string }).userId === userId);
}

/** Ten wrong passwords (one failure window), then the window is closed as if 15 minutes had passed. */
async function failOneWindow(email: string) {
  for (let i = 0; i < 10; i++) {
    expect((await client().post('/api/login', { email, password: `wrong-${i}-${PASSWORD}` })).status).toBe(422);
  }
  expect((await client().post('/api/login', { email, password: 'wrong-again' })).status).toBe(429);
  await t.runtime.deps.redis.del(redisKey('signin-fail-account', email));
}

describe('the sign-in-restricted notice (item 7)', () => {
  it('is sent at most once per account in 6 hours, however many windows fill', async () => {
    const email = 'notice-cap@example.jp';
    const user = await member(email);
    for (let window = 0; window < 3; window++) await failOneWindow(email);
    expect(await eventsOf('SignInThrottled', user.id)).toHaveLength(1);
    const ttl = await t.runtime.deps.redis.ttl(redisKey('signin-notice', user.id));
    expect(ttl).toBeGreaterThan(6 * 3600 - 60);
    expect(ttl).toBeLessThanOrEqual(6 * 3600);

    // Six hours later (the key expired) the next filled window tells the owner again.
    await t.runtime.deps.redis.del(redisKey('signin-notice', user.id));
    await failOneWindow(email);
    expect(await eventsOf('SignInThrottled', user.id)).toHaveLength(2);
  });

  it('counts on the mailbox limit, and is not sent when the mailbox had its 5 mails this hour', async () => {
    const email = 'notice-mailbox@example.jp';
    const user = await member(email);
    await failOneWindow(email);
    expect(await eventsOf('SignInThrottled', user.id)).toHaveLength(1);
    expect(await t.runtime.deps.redis.get(redisKey('mail-recipient', email))).toBe('1');

    for (let i = 0; i < 4; i++) expect((await client().post('/api/forgot-password', { email })).status).toBe(200);
    expect((await client().post('/api/forgot-password', { email })).status).toBe(429);
    await t.runtime.deps.redis.del(redisKey('signin-notice', user.id));
    await failOneWindow(email);
    expect(await eventsOf('SignInThrottled', user.id)).toHaveLength(1);
  });
});
