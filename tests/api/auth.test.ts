import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppEnv } from '../../src/http/context.ts';
import { AppError, errorResponse } from '../../src/http/errors.ts';
import { permit, permitSelfOr, requireUser } from '../../src/http/guards.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let t: TestRuntime;
let memberId: string;
const ADMIN = { email: 'admin@example.jp', password: 'admin-pass-123' };
const MEMBER = { email: 'member@example.jp', password: 'member-pass-123' };
const profileOf = (email: string) => ({
  email,
  email_confirmation: email,
  last_name: '山田',
  first_name: '花子',
  affiliations: 5,
  affiliation_name: '〇〇病院',
  affiliation_other: '',
  distribution: true,
});

beforeAll(async () => {
  t = await startTestRuntime();
  await createOrPromoteAdmin(t.runtime.deps.orm, ADMIN);
  const member = await aMember(t.runtime.deps.orm, { ...MEMBER, lastName: '山田', firstName: '花子', emailVerified: true });
  memberId = member.id;
  await aMember(t.runtime.deps.orm, {
    email: 'unverified@example.jp',
    password: 'unverified-123',
    lastName: '未確認',
    firstName: '太郎',
    emailVerified: false,
  });
});
afterAll(async () => t?.stop());

describe('GET/POST /api/login, POST /api/logout', () => {
  it('answers an empty users list when signed out', async () => {
    const res = await new TestClient(t.app).get('/api/login');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ users: [] });
  });

  it('signs in with any letter case of the e-mail and keeps an httpOnly Lax session cookie', async () => {
    const client = new TestClient(t.app);
    const res = await client.login('Admin@Example.JP', ADMIN.password, { enrolAdmins: false });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.users).toHaveLength(1);
    expect(body.users[0]).toMatchObject({ email: ADMIN.email, role: 'admin' });
    expect(body.users[0]).not.toHaveProperty('password');
    const cookie = res.headers.getSetCookie().find((c) => c.includes('session_token'));
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);

    const me = await (await client.get('/api/login')).json();
    expect(me.users[0].email).toBe(ADMIN.email);

    const out = await client.post('/api/logout');
    expect(out.status).toBe(200);
    expect(await (await client.get('/api/login')).json()).toEqual({ users: [] });
  });

  it('refuses a wrong password with a Japanese message and field errors', async () => {
    const res = await new TestClient(t.app).login(ADMIN.email, 'wrong-password');
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      message: 'メールアドレスまたはパスワードが正しくありません。',
      errors: { email: ['メールアドレスまたはパスワードが正しくありません。'] },
    });
  });

  it('answers an unknown address exactly like a wrong password', async () => {
    const res = await new TestClient(t.app).login('nobody@example.jp', 'whatever-123');
    expect(res.status).toBe(422);
    expect((await res.json()).message).toBe('メールアドレスまたはパスワードが正しくありません。');
  });

  it('refuses an unverified address and says why', async () => {
    const res = await new TestClient(t.app).login('unverified@example.jp', 'unverified-123');
    expect(res.status).toBe(422);
    expect((await res.json()).message).toContain('メールアドレスの確認が完了していません');
  });

  it('revoked sessions stop working at once (no cookie cache)', async () => {
    const client = new TestClient(t.app);
    await client.login(MEMBER.email, MEMBER.password);
    await t.runtime.deps.orm.em.fork().execute('delete from sessions where user_id = ?', [memberId]);
    expect(await (await client.get('/api/login')).json()).toEqual({ users: [] });
  });

  it('limits failed sign-ins per client network, generously, in Redis (429 with Retry-After); IPv6 counts by /64', async () => {
    const client = new TestClient(t.app, '198.51.100.77');
    let last = await client.login('flood@example.jp', 'wrong-password');
    for (let i = 0; i < 100; i++) last = await client.login(`flood${i}@example.jp`, 'wrong-password');
    expect(last.status).toBe(429);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await last.json()).message).toContain('しばらく時間をおいて');
    // Another address is not affected.
    const other = await new TestClient(t.app, '198.51.100.78').login(MEMBER.email, MEMBER.password);
    expect(other.status).toBe(200);
    const keys = await t.runtime.deps.redis.keys(`${t.prefix}:ratelimit:signin-fail-address:*`);
    expect(keys).toContain(`${t.prefix}:ratelimit:signin-fail-address:198.51.100.77`);
    // Addresses of one IPv6 /64 share a bucket.
    for (let i = 0; i < 3; i++)
      await new TestClient(t.app, `2001:db8:1:2::${i + 1}`).login(`v6-${i}@example.jp`, 'wrong-password');
    expect(await t.runtime.deps.redis.get(`${t.prefix}:ratelimit:signin-fail-address:2001:db8:1:2::/64`)).toBe('3');
  });

  it('never counts successful sign-ins: a fire station signs in fifty times from one address', async () => {
    // Members of one station (administrators sign in with a code, once per 30 s each: two-factor).
    const station = () => new TestClient(t.app, '203.0.113.200').login(MEMBER.email, MEMBER.password);
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) statuses.push((await station()).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
  });

  it('pauses an account after 10 failures from any number of addresses, even for the right password, and tells its owner once', async () => {
    const victim = await aMember(t.runtime.deps.orm, {
      email: 'victim@example.jp',
      password: 'victim-pass-123',
      lastName: '被害',
      firstName: '者',
      emailVerified: true,
    });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      statuses.push((await new TestClient(t.app, `192.0.2.${10 + (i % 5)}`).login('victim@example.jp', `guess-${i}`)).status);
    }
    expect(statuses).toEqual([...Array(10).fill(422), 429, 429]);
    const right = await new TestClient(t.app, '192.0.2.99').login('victim@example.jp', 'victim-pass-123');
    expect(right.status).toBe(429);
    const events = await t.runtime.deps.orm.em
      .fork()
      .execute("select count(*)::int as n from outbox_events where name = 'SignInThrottled' and payload->>'userId' = ?", [
        victim.id,
      ]);
    expect(events[0]?.n).toBe(1);
  });
});

describe('CSRF bound to the session', () => {
  it('refuses a token pair minted for another session, and re-issues the token at sign-in and sign-out', async () => {
    const alice = new TestClient(t.app, '198.51.100.91');
    const mallory = new TestClient(t.app, '198.51.100.92');
    const signedOutToken = (await alice.get('/api/csrf-token')).headers.getSetCookie().find((c) => c.startsWith('XSRF-TOKEN='));
    expect(signedOutToken).toBeDefined();
    const signIn = await alice.login(MEMBER.email, MEMBER.password);
    expect(signIn.status).toBe(200);
    expect(signIn.headers.getSetCookie().some((c) => c.startsWith('XSRF-TOKEN='))).toBe(true);
    // Alice's own (re-issued) token works.
    expect((await alice.put(`/api/users/${memberId}`, { ...profileOf(MEMBER.email) })).status).toBe(200);

    /** Alice's session cookies with `token` as both the XSRF cookie and header. */
    const withToken = (token: string) =>
      t.app.request(`/api/users/${memberId}`, {
        method: 'PUT',
        headers: {
          'content-type': 'application/json',
          'x-forwarded-for': '198.51.100.91',
          cookie: [
            ...[...alice.cookies].filter(([k]) => k !== 'XSRF-TOKEN').map(([k, v]) => `${k}=${v}`),
            `XSRF-TOKEN=${token}`,
          ].join('; '),
          'x-xsrf-token': decodeURIComponent(token),
        },
        body: JSON.stringify(profileOf(MEMBER.email)),
      });

    // Mallory's pair, minted in another browser, is refused with Alice's session.
    await mallory.get('/api/csrf-token');
    const forged = await withToken(mallory.cookies.get('XSRF-TOKEN') ?? '');
    expect(forged.status).toBe(419);
    expect(await forged.json()).toEqual({ message: 'CSRF token mismatch.' });

    // A token from before sign-in no longer passes once signed in (the SPA fetches a new one and retries).
    const before = await withToken(signedOutToken?.split(';')[0]?.split('=')[1] ?? '');
    expect(before.status).toBe(419);

    const signOut = await alice.post('/api/logout');
    expect(signOut.headers.getSetCookie().some((c) => c.startsWith('XSRF-TOKEN='))).toBe(true);
    // Signed out, the re-issued token works for a public call.
    expect((await alice.post('/api/forgot-password', { email: 'csrf-nobody@example.jp' })).status).toBe(200);
  });
});

describe('server-side guards', () => {
  const guarded = () => {
    const app = new Hono<AppEnv>();
    app.use(async (c, next) => {
      c.set('deps', t.runtime.deps);
      c.set('user', undefined);
      await next();
    });
    app.get('/signed-in', requireUser, (c) => c.json({ ok: true }));
    app.get('/admin', permit('members:read'), (c) => c.json({ ok: true }));
    app.get('/users/:id', permitSelfOr('members:read'), (c) => c.json({ ok: true }));
    app.onError((error, c) => (error instanceof AppError ? errorResponse(c, error) : c.json({}, 500)));
    return app;
  };

  it('401 signed out, 403 for the wrong role or someone else, 200 otherwise', async () => {
    const app = guarded();
    const member = new TestClient(t.app);
    await member.login(MEMBER.email, MEMBER.password);
    const admin = new TestClient(t.app);
    await admin.login(ADMIN.email, ADMIN.password);
    const as = async (client: TestClient | null, path: string) =>
      (await app.request(path, { headers: client ? { cookie: client.cookieHeader() } : {} })).status;

    expect(await as(null, '/signed-in')).toBe(401);
    expect(await as(null, '/admin')).toBe(401);
    expect(await as(member, '/signed-in')).toBe(200);
    expect(await as(member, '/admin')).toBe(403);
    expect(await as(admin, '/admin')).toBe(200);
    expect(await as(member, `/users/${memberId}`)).toBe(200);
    expect(await as(member, '/users/someone-else')).toBe(403);
    expect(await as(admin, `/users/${memberId}`)).toBe(200);
    const denied = await app.request('/admin', { headers: { cookie: member.cookieHeader() } });
    expect((await denied.json()).message).toBe('この操作を行う権限がありません。');
  });
});

describe('admin:create', () => {
  it('creates once, then promotes without duplicating', async () => {
    const { orm } = t.runtime.deps;
    const first = await createOrPromoteAdmin(orm, { email: 'Boss@example.jp', password: 'boss-pass-123' });
    const second = await createOrPromoteAdmin(orm, { email: 'boss@example.jp', password: 'boss-pass-123' });
    expect(first.created).toBe(true);
    expect(second.created).toBe(false);
    const rows = await orm.em.fork().execute("select count(*)::int as n from users where lower(email) = 'boss@example.jp'");
    expect(rows[0]?.n).toBe(1);
    const promoted = await createOrPromoteAdmin(orm, { email: MEMBER.email, password: 'ignored-123' });
    expect(promoted.user.role).toBe('admin');
    const login = await new TestClient(t.app, '192.0.2.9').login(MEMBER.email, MEMBER.password);
    expect((await login.json()).users[0].role).toBe('admin');
  });

  it('keeps e-mails unique whatever their case', async () => {
    await expect(
      aMember(t.runtime.deps.orm, {
        email: 'ADMIN@example.jp',
        password: 'another-123',
        lastName: 'x',
        firstName: 'y',
        emailVerified: false,
      }),
    ).rejects.toThrow();
  });
});
