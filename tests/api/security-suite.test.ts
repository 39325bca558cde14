import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireUser } from '../../src/http/guards.ts';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { createLicense } from '../../src/modules/licenses/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { WEB_ROOT } from '../support/server.ts';

/**
 * The app's own route table drives these checks, so a route added later is covered without a test
 * being written for it: CSRF on every unsafe call, sign-in and role on every guarded one, IDOR on
 * every member route, and the security headers on every kind of answer.
 */
let t: TestRuntime;
let admin: TestClient;
let member: TestClient;
let memberId: string;
let otherId: string;
let licenseId: number;

/** Calls anyone may make (the seed's public screens, Stripe's signed webhook, e-mail links). */
const PUBLIC = [
  'GET /api/csrf-token',
  'GET /api/login',
  'POST /api/login',
  'POST /api/logout',
  'POST /api/forgot-password',
  'POST /api/login/two-factor',
  'POST /api/login/passkey/options',
  'POST /api/login/passkey',
  'POST /api/reset-password',
  // Whether an e-mailed reset link still works, asked by the reset page before a password is typed.
  'GET /api/reset-password/:token',
  'GET /api/two-factor/unlock/:token',
  'POST /api/two-factor/unlock',
  'POST /api/users/registration/validate',
  'POST /api/users/registration',
  'POST /api/users/registration/resend',
  'GET /api/users/registration/verify/:token',
  'GET /api/users/email-change/verify/:token',
  'POST /api/stripe/webhook',
  // お問い合わせ: anyone may write, signed in or not (its form hands out a signed start time).
  'GET /api/contact/form',
  'POST /api/contact',
  // The API's own contract: its OpenAPI document and the reference page that shows it (decision 0041).
  'GET /api/openapi.json',
  'GET /api/docs',
  'GET /api/docs/scalar.js',
];
const CSRF_EXEMPT = ['POST /api/stripe/webhook'];

interface Route {
  method: string;
  path: string;
  admin: boolean;
  signedIn: boolean;
}

function apiRoutes(): Route[] {
  const byKey = new Map<string, Route>();
  for (const r of t.app.routes) {
    if (!r.path.startsWith('/api/') || r.method === 'ALL' || r.path.includes('*')) continue;
    const key = `${r.method} ${r.path}`;
    const route = byKey.get(key) ?? { method: r.method, path: r.path, admin: false, signedIn: false };
    if ('permission' in r.handler) route.admin = true;
    if (r.handler === requireUser) route.signedIn = true;
    byKey.set(key, route);
  }
  return [...byKey.values()];
}

/** A concrete URL for a route: numeric ids a licence, uuid-shaped ids the member (or a given user). */
const urlOf = (route: Route, userId = memberId) =>
  route.path
    .replace(/:id\{\[0-9\](\+|\{1,9\})\}/g, String(licenseId))
    .replace(/:id\{\[1-9\]\[0-9\]\{0,8\}\}/g, String(licenseId))
    .replace(/:id\{\[0-9a-f-\]\+\}/g, '00000000-0000-4000-8000-000000000000')
    .replace(/:id\{\[0-9a-fA-F-\]\+\}/g, userId)
    .replace(/:token/g, 'x'.repeat(43))
    // Any other pattern without inner braces (`:number{[0-9A-Za-z-]+}`): a word it takes.
    .replace(/:[a-z]+\{[^{}/]*\}/gi, 'x')
    .replace(/:[a-z]+/gi, 'x');

const unsafe = (route: Route) => !['GET', 'HEAD', 'OPTIONS'].includes(route.method);
const key = (route: Route) => `${route.method} ${route.path}`;

beforeAll(async () => {
  t = await startTestRuntime({ webRoot: WEB_ROOT });
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'suite-admin@example.jp', password: 'suite-admin-pass' });
  const make = (email: string) =>
    aMember(t.runtime.deps.orm, { email, password: 'suite-member-pass', lastName: '会員', firstName: '一', emailVerified: true });
  memberId = (await make('suite-member@example.jp')).id;
  otherId = (await make('suite-other@example.jp')).id;
  licenseId = (
    await createLicense(
      t.runtime.deps.orm,
      t.runtime.deps.files,
      { id: 'x', email: 'x' },
      { name: 'BLS', description: '', price: 5500 },
      [],
    )
  ).id;
  admin = new TestClient(t.app, '10.95.0.1');
  await admin.login('suite-admin@example.jp', 'suite-admin-pass');
  member = new TestClient(t.app, '10.95.0.2');
  await member.login('suite-member@example.jp', 'suite-member-pass');
});
afterAll(async () => t?.stop());

describe('from the route table', () => {
  it('knows the routes it checks', () => {
    const routes = apiRoutes();
    expect(routes.length).toBeGreaterThan(30);
    expect(routes.filter((r) => r.admin).length).toBeGreaterThan(10);
  });

  it('refuses every unsafe call without the CSRF token (419), whoever calls', async () => {
    const failures: string[] = [];
    for (const route of apiRoutes().filter(unsafe)) {
      if (CSRF_EXEMPT.includes(key(route))) continue;
      for (const client of [admin, member]) {
        const res = await client.request(route.method, urlOf(route), { json: {}, csrf: false });
        if (res.status !== 419) failures.push(`${key(route)} → ${res.status}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('answers 401 signed out on every call that is not public', async () => {
    const failures: string[] = [];
    const guest = new TestClient(t.app, '10.95.0.3');
    for (const route of apiRoutes()) {
      if (PUBLIC.includes(key(route))) continue;
      const res = await guest.request(route.method, urlOf(route), unsafe(route) ? { json: {} } : {});
      if (res.status !== 401) failures.push(`${key(route)} → ${res.status}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers 403 to a member on every administrator call', async () => {
    const failures: string[] = [];
    for (const route of apiRoutes().filter((r) => r.admin)) {
      const res = await member.request(route.method, urlOf(route), unsafe(route) ? { json: {} } : {});
      if (res.status !== 403) failures.push(`${key(route)} → ${res.status}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers 403 to a member on another member’s records (IDOR), on every member route', async () => {
    const failures: string[] = [];
    for (const route of apiRoutes().filter((r) => !r.admin && r.path.includes(':id{[0-9a-fA-F-]+}'))) {
      const res = await member.request(route.method, urlOf(route, otherId), unsafe(route) ? { json: {} } : {});
      if (res.status !== 403) failures.push(`${key(route)} → ${res.status}`);
    }
    expect(failures).toEqual([]);
  });
});

describe('mass assignment', () => {
  it('ignores role, email_verified, price, status and amount sent where they are not fields', async () => {
    const email = 'suite-mass@example.jp';
    await new TestClient(t.app, '10.95.0.4').post('/api/users/registration', {
      email,
      email_confirmation: email,
      last_name: '一括',
      first_name: '代入',
      affiliations: 4,
      affiliation_name: '消防',
      affiliation_other: '',
      distribution: true,
      password: 'kumo-umi-sora-42',
      password_confirmation: 'kumo-umi-sora-42',
      role: 'admin',
      email_verified: true,
    });
    const [row] = await t.runtime.deps.orm.em.fork().execute('select role, email_verified from users where email = ?', [email]);
    expect(row).toEqual({ role: 'user', email_verified: false });
    const update = await member.put(`/api/users/${memberId}`, {
      email: 'suite-member@example.jp',
      email_confirmation: 'suite-member@example.jp',
      last_name: '会員',
      first_name: '一',
      affiliations: 4,
      affiliation_name: '消防',
      affiliation_other: '',
      distribution: true,
      role: 'admin',
    });
    expect(update.status).toBe(200);
    expect((await update.json()).user.role).toBe('user');
    const checkout = await member.post('/api/licenses/stripe', { licenseId, distribution: true, price: 1, amount: 1 });
    // Priced from the database whatever the client says (the emulator is not running here: any answer but a cheaper sale).
    expect(checkout.status).not.toBe(500);
    const [session] = await t.runtime.deps.orm.em
      .fork()
      .execute('select amount from checkout_sessions order by created_at desc limit 1');
    expect(session?.amount).toBe(5500);
  });
});

describe('security headers', () => {
  it('are on HTML, JSON, pictures, downloads and error answers alike', async () => {
    const html = await t.app.request('/admin/licenses/issue');
    expect(html.headers.get('content-type')).toContain('text/html');
    const answers = [
      html,
      await admin.get('/api/licenses'),
      await admin.get('/api/nope'),
      await member.get('/api/sales'),
      await t.app.request('/uploads/licenses/00000000-0000-0000-0000-000000000000.jpg'),
      await admin.get('/api/exports/00000000-0000-4000-8000-000000000000/download'),
      await t.app.request('/healthz'),
    ];
    for (const res of answers) {
      expect(res.headers.get('x-content-type-options'), res.url).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('strict-transport-security')).toContain('max-age=');
      expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    }
  });
});

describe('throttles across two web processes', () => {
  it('count an account’s failed sign-ins and a mailbox’s mails in Redis, whichever process answers', async () => {
    const second = await startTestRuntime({ shareWith: t });
    try {
      await aMember(t.runtime.deps.orm, {
        email: 'suite-target@example.jp',
        password: 'suite-target-pass',
        lastName: '標的',
        firstName: '一',
        emailVerified: true,
      });
      const apps = [t.app, second.app];
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) {
        const res = await new TestClient(apps[i % 2], `10.96.0.${i}`).login('suite-target@example.jp', `guess-${i}`);
        statuses.push(res.status);
      }
      expect(statuses).toEqual([...Array(10).fill(422), 429]);
      const mails: number[] = [];
      for (let i = 0; i < 6; i++) {
        mails.push(
          (await new TestClient(apps[i % 2], `10.97.0.${i}`).post('/api/forgot-password', { email: 'suite-mailbox@example.jp' }))
            .status,
        );
      }
      expect(mails).toEqual([200, 200, 200, 200, 200, 429]);
      // Signed in on one process, recognised on the other (one database, one secret).
      const client = new TestClient(t.app, '10.98.0.1');
      await client.login('suite-member@example.jp', 'suite-member-pass');
      const elsewhere = await second.app.request('/api/login', { headers: { cookie: client.cookieHeader() } });
      expect((await elsewhere.json()).users[0]?.id).toBe(memberId);
    } finally {
      await second.stop();
    }
  });
});
