import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { eventually } from '../support/wait.ts';

// Issue 20, items 4 and 7: sessions a member can see and end, on every web process at once; an
// absolute lifetime (and an idle time for administrators); re-authentication before e-mail changes.
let t: TestRuntime;
let second: TestRuntime;
const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';

const db = () => t.runtime.deps.orm.em.fork();

async function member(email: string, password = 'member-pass-123') {
  const user = await aMember(t.runtime.deps.orm, { email, password, lastName: '端末', firstName: '花子', emailVerified: true });
  return user.id;
}

/** A browser: its own cookies, address and User-Agent, against `app` (web process A unless given). */
async function browser(email: string, password: string, ip: string, userAgent: string, app: unknown = t.app) {
  const client = new TestClient(app, ip);
  const send = client.request.bind(client);
  client.request = (method, path, options = {}) =>
    send(method, path, { ...options, headers: { 'user-agent': userAgent, ...options.headers } });
  expect((await client.login(email, password)).status).toBe(200);
  return client;
}

const signedIn = async (client: TestClient) => ((await (await client.get('/api/login')).json()).users as unknown[]).length > 0;
const del = (client: TestClient, path: string) => client.request('DELETE', path);

beforeAll(async () => {
  t = await startTestRuntime();
  second = await startTestRuntime({ shareWith: t });
});
afterAll(async () => {
  await second?.stop();
  await t?.stop();
});

describe('GET/DELETE /api/me/sessions', () => {
  it('lists where the member is signed in, marks this one, and ends another on every web process at once', async () => {
    await member('two-browsers@example.jp');
    const pc = await browser('two-browsers@example.jp', 'member-pass-123', '198.51.100.21', CHROME_WINDOWS);
    // The phone is served by the other web process, which keeps its session in memory.
    const phone = await browser('two-browsers@example.jp', 'member-pass-123', '198.51.100.22', SAFARI_IPHONE, second.app);
    expect(await signedIn(phone)).toBe(true);

    const res = await pc.get('/api/me/sessions');
    expect(res.status).toBe(200);
    const { sessions } = await res.json();
    expect(sessions).toHaveLength(2);
    const mine = sessions.find((s: { current: boolean }) => s.current);
    const other = sessions.find((s: { current: boolean }) => !s.current);
    expect(mine).toMatchObject({ ip: '198.51.100.21', user_agent: CHROME_WINDOWS, device: 'Chrome（Windows）' });
    expect(other).toMatchObject({ ip: '198.51.100.22', user_agent: SAFARI_IPHONE, device: 'Safari（iOS）' });
    for (const s of sessions) {
      expect(Object.keys(s).sort()).toEqual(['created_at', 'current', 'device', 'id', 'ip', 'last_active_at', 'user_agent']);
      expect(new Date(s.created_at).getTime()).toBeLessThanOrEqual(new Date(s.last_active_at).getTime());
    }

    const ended = await del(pc, `/api/me/sessions/${other.id}`);
    expect(ended.status).toBe(200);
    expect((await ended.json()).message).toBe('選択した端末をログアウトさせました。');
    // The other process drops its cached session on the change notice (within a second, decision 0023).
    const endedAt = Date.now();
    await eventually(async () => !(await signedIn(phone)), 1_000, 'the phone signed out on the other process');
    expect(Date.now() - endedAt).toBeLessThanOrEqual(1_000);
    expect(await signedIn(pc)).toBe(true);
    expect((await (await pc.get('/api/me/sessions')).json()).sessions).toHaveLength(1);
    // Ending it again: it is gone.
    expect((await del(pc, `/api/me/sessions/${other.id}`)).status).toBe(404);
  });

  it('ends every other session at once, keeping this one', async () => {
    await member('many-browsers@example.jp');
    const here = await browser('many-browsers@example.jp', 'member-pass-123', '198.51.100.31', CHROME_WINDOWS);
    const others = [
      await browser('many-browsers@example.jp', 'member-pass-123', '198.51.100.32', SAFARI_IPHONE, second.app),
      await browser('many-browsers@example.jp', 'member-pass-123', '198.51.100.33', SAFARI_IPHONE),
    ];
    const res = await del(here, '/api/me/sessions');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: 'ほかの端末（2件）をログアウトさせました。', ended: 2 });
    for (const client of others) expect(await signedIn(client)).toBe(false);
    expect(await signedIn(here)).toBe(true);
    expect(await (await del(here, '/api/me/sessions')).json()).toMatchObject({ ended: 0 });
  });

  it("cannot see or end another member's sessions; needs a session and the CSRF token", async () => {
    await member('victim-s@example.jp');
    await member('attacker-s@example.jp');
    const victim = await browser('victim-s@example.jp', 'member-pass-123', '198.51.100.41', CHROME_WINDOWS);
    const attacker = await browser('attacker-s@example.jp', 'member-pass-123', '198.51.100.42', CHROME_WINDOWS);
    const [victimSession] = (await (await victim.get('/api/me/sessions')).json()).sessions;
    expect((await attacker.get('/api/me/sessions')).status).toBe(200);
    expect(JSON.stringify(await (await attacker.get('/api/me/sessions')).json())).not.toContain(victimSession.id);
    expect((await del(attacker, `/api/me/sessions/${victimSession.id}`)).status).toBe(404);
    expect(await signedIn(victim)).toBe(true);
    expect((await victim.request('DELETE', `/api/me/sessions/${victimSession.id}`, { csrf: false })).status).toBe(419);
    expect((await new TestClient(t.app).get('/api/me/sessions')).status).toBe(401);
    expect((await del(victim, '/api/me/sessions/not-a-uuid')).status).toBe(404);
  });

  it('ending this browser’s own session signs it out and clears its cookie', async () => {
    await member('self-end@example.jp');
    const pc = await browser('self-end@example.jp', 'member-pass-123', '198.51.100.51', CHROME_WINDOWS);
    const [mine] = (await (await pc.get('/api/me/sessions')).json()).sessions;
    const res = await del(pc, `/api/me/sessions/${mine.id}`);
    expect(await res.json()).toMatchObject({ current: true });
    expect(await signedIn(pc)).toBe(false);
  });
});

describe('absolute session lifetime (30 days members, 12 hours administrators) and administrators’ idle time', () => {
  // Aged in the database behind the shop's back: the next request waits until this process's session
  // cache has heard of it (the change notice), as a request that changed it itself would.
  const age = async (userId: string, sql: string) => {
    await db().execute(`update sessions set ${sql} where user_id = ?`, [userId]);
    await t.runtime.deps.changes?.sync();
  };

  it('ends a member’s session 30 days after sign-in, however recently it was used', async () => {
    const id = await member('old-session@example.jp');
    const pc = await browser('old-session@example.jp', 'member-pass-123', '198.51.100.61', CHROME_WINDOWS);
    await age(id, "created_at = now() - interval '29 days', last_active_at = now() - interval '2 minutes'");
    expect(await signedIn(pc)).toBe(true);
    // Renewed by its use, but never past created_at + 30 days.
    const [row] = await db().execute<{ ends: boolean }[]>(
      "select expires_at <= created_at + interval '30 days' and expires_at > now() + interval '23 hours' as ends from sessions where user_id = ?",
      [id],
    );
    expect(row?.ends).toBe(true);
    await age(id, "created_at = now() - interval '30 days 1 minute', last_active_at = now()");
    expect(await signedIn(pc)).toBe(false);
    expect(await db().execute('select 1 from sessions where user_id = ?', [id])).toHaveLength(0);
  });

  it('lets a member’s session lie unused (no idle limit for members)', async () => {
    const id = await member('idle-member@example.jp');
    const pc = await browser('idle-member@example.jp', 'member-pass-123', '198.51.100.62', CHROME_WINDOWS);
    await age(id, "last_active_at = now() - interval '3 days'");
    expect(await signedIn(pc)).toBe(true);
  });

  it('ends an administrator’s session after 12 hours, and after 30 minutes unused', async () => {
    const { user } = await createOrPromoteAdmin(t.runtime.deps.orm, {
      email: 'life-admin@example.jp',
      password: 'admin-pass-123',
    });
    const a = await browser('life-admin@example.jp', 'admin-pass-123', '198.51.100.63', CHROME_WINDOWS);
    await age(user.id, "created_at = now() - interval '11 hours 50 minutes', last_active_at = now() - interval '29 minutes'");
    expect(await signedIn(a)).toBe(true);
    await age(user.id, "created_at = now() - interval '12 hours 1 minute', last_active_at = now()");
    expect(await signedIn(a)).toBe(false);

    const b = await browser('life-admin@example.jp', 'admin-pass-123', '198.51.100.63', CHROME_WINDOWS);
    await age(user.id, "last_active_at = now() - interval '31 minutes'");
    expect(await signedIn(b)).toBe(false);
  });
});

describe('re-authentication before changing the e-mail address or the password', () => {
  const profile = (email: string, extra: Record<string, unknown> = {}) => ({
    email,
    email_confirmation: email,
    last_name: '端末',
    first_name: '花子',
    affiliations: 5,
    affiliation_name: '〇〇病院',
    affiliation_other: '',
    distribution: true,
    ...extra,
  });
  const failures = async (email: string) =>
    Number((await t.runtime.deps.redis.get(`${t.prefix}:ratelimit:signin-fail-account:${email}`)) ?? 0);

  it('asks for the current password, refuses a wrong one (422, counted as a failed sign-in) and accepts the right one', async () => {
    const id = await member('reauth@example.jp');
    const pc = await browser('reauth@example.jp', 'member-pass-123', '198.51.100.71', CHROME_WINDOWS);
    const missing = await pc.put(`/api/users/${id}`, profile('moved@example.jp'));
    expect(missing.status).toBe(422);
    expect(await missing.json()).toEqual({
      message: 'メールアドレスを変更するには、現在のパスワードを入力してください。',
      errors: { current_password: ['メールアドレスを変更するには、現在のパスワードを入力してください。'] },
    });
    const wrong = await pc.put(`/api/users/${id}`, profile('moved@example.jp', { current_password: 'not-my-password' }));
    expect(wrong.status).toBe(422);
    expect(await wrong.json()).toEqual({
      message: '現在のパスワードが正しくありません。',
      errors: { current_password: ['現在のパスワードが正しくありません。'] },
    });
    expect(await failures('reauth@example.jp')).toBe(1);
    const right = await pc.put(`/api/users/${id}`, profile('moved@example.jp', { current_password: 'member-pass-123' }));
    expect(right.status).toBe(200);
    expect((await right.json()).user.pending_email).toBe('moved@example.jp');
    expect(await failures('reauth@example.jp')).toBe(1);
    // Other fields change without it.
    const names = await pc.put(`/api/users/${id}`, { ...profile('reauth@example.jp'), last_name: '改名' });
    expect(names.status).toBe(200);
  });

  it('a stolen session cannot guess the password through the forms: the account’s sign-in throttle counts them', async () => {
    const id = await member('reauth-guess@example.jp');
    const pc = await browser('reauth-guess@example.jp', 'member-pass-123', '198.51.100.72', CHROME_WINDOWS);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await pc.put(`/api/users/${id}`, profile(`g${i}@example.jp`, { current_password: `guess-${i}` }))).status);
    }
    for (let i = 0; i < 3; i++) {
      const res = await pc.put(`/api/users/${id}/password`, {
        old_password: `guess-old-${i}`,
        new_password: 'brand-new-pass-456',
        new_password_confirmation: 'brand-new-pass-456',
      });
      statuses.push(res.status);
      if (i === 0) expect((await res.json()).errors).toEqual({ old_password: ['現在のパスワードが正しくありません。'] });
    }
    // A wrong password is refused before the e-mail change is counted against the member's 5 an hour.
    expect(statuses).toEqual(Array(9).fill(422));
    expect(await failures('reauth-guess@example.jp')).toBe(9);
    // The tenth failure fills the account's window: sign-in pauses, the right password too.
    await pc.put(`/api/users/${id}/password`, {
      old_password: 'guess-last',
      new_password: 'brand-new-pass-456',
      new_password_confirmation: 'brand-new-pass-456',
    });
    expect((await new TestClient(t.app, '198.51.100.73').login('reauth-guess@example.jp', 'member-pass-123')).status).toBe(429);
  });
});
