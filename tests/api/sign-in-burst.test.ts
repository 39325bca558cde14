import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aMember } from '../support/factories.ts';

import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

// Issue 20, item 7 (High): the throttles must hold when the tries arrive together, not one by one.
let t: TestRuntime;
const ACCOUNT_LIMIT = 10;
const ADDRESS_LIMIT = 100;

async function member(email: string, password: string) {
  return aMember(t.runtime.deps.orm, { email, password, lastName: '並列', firstName: '試験', emailVerified: true });
}

/** Sends every try at once (each client with its own CSRF token first, so only the sign-ins race). */
async function burst(tries: { ip: string; email: string; password: string }[]): Promise<number[]> {
  const clients = tries.map((attempt) => ({ attempt, client: new TestClient(t.app, attempt.ip) }));
  await Promise.all(clients.map(({ client }) => client.get('/api/csrf-token')));
  const answers = await Promise.all(clients.map(({ attempt, client }) => client.login(attempt.email, attempt.password)));
  return answers.map((res) => res.status);
}

const tally = (statuses: number[]) => {
  const out: Record<number, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
};

beforeAll(async () => {
  t = await startTestRuntime();
});
afterAll(async () => t?.stop());

describe('sign-in throttles under parallel bursts', () => {
  it('1,000 parallel tries from one address at one account check at most 10 guesses; the right password among them does not get through', async () => {
    await member('burst-one@example.jp', 'burst-right-123');
    const tries = Array.from({ length: 1000 }, (_, i) => ({
      ip: '198.51.100.50',
      email: 'burst-one@example.jp',
      password: i === 999 ? 'burst-right-123' : `guess-${i}`,
    }));
    const statuses = await burst(tries);
    const counts = tally(statuses);
    // 422: a wrong password was checked; 200: the right one was. Everything else was refused unchecked.
    expect((counts[422] ?? 0) + (counts[200] ?? 0)).toBeLessThanOrEqual(ACCOUNT_LIMIT);
    expect(counts[422]).toBeGreaterThan(0);
    expect((counts[422] ?? 0) + (counts[200] ?? 0) + (counts[429] ?? 0)).toBe(1000);
    // The window is full of failures now: the right password waits like everyone else.
    if (!counts[200])
      expect((await new TestClient(t.app, '198.51.100.51').login('burst-one@example.jp', 'burst-right-123')).status).toBe(429);
    // The owner is told once.
    const [told] = await t.runtime.deps.orm.em
      .fork()
      .execute<{ n: number }[]>(
        "select count(*)::int as n from outbox_events o join users u on u.id::text = o.payload->>'userId' where o.name = 'SignInThrottled' and u.email = ?",
        ['burst-one@example.jp'],
      );
    expect(told?.n).toBe(1);
  });

  it('1,000 parallel tries from 1,000 addresses at one account check at most 10 guesses', async () => {
    await member('burst-many@example.jp', 'burst-right-456');
    const tries = Array.from({ length: 1000 }, (_, i) => ({
      ip: `10.${Math.floor(i / 250)}.${i % 250}.7`,
      email: 'burst-many@example.jp',
      password: `guess-${i}`,
    }));
    const counts = tally(await burst(tries));
    expect(counts[422]).toBeLessThanOrEqual(ACCOUNT_LIMIT);
    expect(counts[429]).toBeGreaterThanOrEqual(1000 - ACCOUNT_LIMIT);
  });

  it('1,000 parallel tries from one address across many accounts check at most 100 guesses', async () => {
    const tries = Array.from({ length: 1000 }, (_, i) => ({
      ip: '198.51.100.60',
      email: `spray-${i}@example.jp`,
      password: 'Password123',
    }));
    const counts = tally(await burst(tries));
    expect(counts[422]).toBeLessThanOrEqual(ADDRESS_LIMIT);
    expect(counts[422]).toBeGreaterThan(0);
    expect(counts[429]).toBeGreaterThanOrEqual(1000 - ADDRESS_LIMIT);
    // Another network signs in as usual.
    await member('bystander@example.jp', 'bystander-pass-1');
    expect((await new TestClient(t.app, '198.51.100.61').login('bystander@example.jp', 'bystander-pass-1')).status).toBe(200);
  });

  it('successes in parallel never count: 50 members of one station sign in at once, then a typo still gets its 422', async () => {
    await member('station@example.jp', 'station-pass-123');
    const statuses = await burst(
      Array.from({ length: 50 }, () => ({ ip: '203.0.113.150', email: 'station@example.jp', password: 'station-pass-123' })),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    const key = `${t.prefix}:ratelimit:signin-fail-account:station@example.jp`;
    expect(Number((await t.runtime.deps.redis.get(key)) ?? 0)).toBe(0);
    expect((await new TestClient(t.app, '203.0.113.150').login('station@example.jp', 'typo')).status).toBe(422);
    expect(await t.runtime.deps.redis.get(key)).toBe('1');
  });
});
