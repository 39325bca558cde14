import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, millisecondsAgo, now } from '../../src/db/kysely.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { maskTokens } from '../../src/lib/mask-tokens.ts';
import { createAuth, createOrPromoteAdmin, newPasswordProblem } from '../../src/modules/accounts/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

// The attack round's findings (issue 20, item 7) and the password rules (item 3), replayed.
const TOKEN = 'asvs-metrics-token-0123456789';
const lines: Record<string, unknown>[] = [];
let t: TestRuntime;
let admin: TestClient;
let seq = 0;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  t = await startTestRuntime({ env: { METRICS_TOKEN: TOKEN }, log: createLogger('info', {}, sink) });
  await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'asvs-admin@example.jp', password: 'vivid-harbour-lantern' });
  admin = new TestClient(t.app, '10.77.0.1');
  expect((await admin.login('asvs-admin@example.jp', 'vivid-harbour-lantern')).status).toBe(200);
}, 60_000);
afterAll(async () => t?.stop());

/** A verified member with a password that passes every rule, signed in from an address of their own. */
async function member(lastName = '防災', firstName = '花子') {
  const email = `asvs-${++seq}-${Date.now()}@example.jp`;
  const user = await aMember(t.runtime.deps.orm, {
    email,
    password: 'quiet-meadow-7319',
    lastName,
    firstName,
    emailVerified: true,
    affiliation: 4,
    affiliationName: '〇〇消防',
  });
  const client = new TestClient(t.app, `10.77.1.${seq}`);
  expect((await client.login(email, 'quiet-meadow-7319')).status).toBe(200);
  return { id: user.id, email, client };
}

const registration = (patch: Record<string, unknown>) => ({
  email: `asvs-new-${++seq}@example.jp`,
  email_confirmation: `asvs-new-${seq}@example.jp`,
  last_name: '山田',
  first_name: '太郎',
  affiliations: 4,
  affiliation_name: '〇〇消防',
  affiliation_other: '',
  distribution: true,
  password: 'silver-canoe-4821',
  password_confirmation: 'silver-canoe-4821',
  ...patch,
});
const pair = (password: string) => ({ password, password_confirmation: password });
const COMMON = 'パスワードはよく使われていて推測されやすいため使用できません。別のパスワードを入力してください。';

describe('passwords to ASVS V6.2', () => {
  it('refuses the 10,000 most common passwords at registration (validate and register), in Japanese, with every field error', async () => {
    const guest = new TestClient(t.app, '10.77.2.1');
    for (const password of ['password', '12345678', 'qwertyuiop', 'PASSWORD1', 'iloveyou', 'baseball', 'trustno1']) {
      for (const path of ['/api/users/registration/validate', '/api/users/registration']) {
        const res = await guest.post(path, registration(pair(password)));
        expect(res.status, `${path} ${password}`).toBe(422);
        expect((await res.json()).errors.password, password).toEqual([COMMON]);
      }
    }
    // Other fields' errors come in the same answer.
    const both = await (
      await guest.post('/api/users/registration/validate', registration({ ...pair('password'), last_name: '' }))
    ).json();
    expect(Object.keys(both.errors).sort()).toEqual(['last_name', 'password']);
    // A rarer one (rank > 10,000 in the list, long enough) is fine.
    expect((await guest.post('/api/users/registration/validate', registration(pair('silver-canoe-4821')))).status).toBe(200);
  });

  it('refuses passwords built from the e-mail local part or the name, at registration', async () => {
    const guest = new TestClient(t.app, '10.77.2.2');
    const email = 'kobayashi.fire@example.jp';
    const cases: [Record<string, unknown>, string][] = [
      [
        { email, email_confirmation: email, ...pair('kobayashi.fire2025') },
        'パスワードにメールアドレスの一部を含めることはできません。',
      ],
      [
        { email, email_confirmation: email, ...pair('My-KOBAYASHI.FIRE!') },
        'パスワードにメールアドレスの一部を含めることはできません。',
      ],
      [{ last_name: 'Tanaka', ...pair('tanaka-was-here-99') }, 'パスワードにお名前（姓・名）を含めることはできません。'],
      [{ first_name: '太郎', ...pair('太郎のパスワード2025') }, 'パスワードにお名前（姓・名）を含めることはできません。'],
      // Full-width letters count as their ASCII selves.
      [{ last_name: 'ＳＡＴＯＵ', ...pair('satou-station-77') }, 'パスワードにお名前（姓・名）を含めることはできません。'],
    ];
    for (const [patch, message] of cases) {
      const res = await guest.post('/api/users/registration/validate', registration(patch));
      expect(res.status, JSON.stringify(patch)).toBe(422);
      expect((await res.json()).errors.password).toEqual([message]);
    }
    // A local part shorter than 3 characters is not a rule.
    const short = await guest.post(
      '/api/users/registration/validate',
      registration({ email: 'ab@example.jp', email_confirmation: 'ab@example.jp', ...pair('ab-cd-ef-gh-42') }),
    );
    expect(short.status).toBe(200);
  });

  it('refuses a common, e-mail-based or name-based password at reset, keeping the link usable', async () => {
    const m = await member('Suzuki', '一郎');
    // A live reset link, as the forgot-password mail would carry it (the hash is what the table keeps).
    const token = randomBytes(32).toString('base64url');
    await db(t.runtime.deps.orm.em.fork())
      .insertInto('account_tokens')
      .values({
        id: randomUUID(),
        user_id: m.id,
        purpose: 'reset-password',
        token_hash: createHash('sha256').update(token).digest('hex'),
        expires_at: millisecondsAgo(-3_600_000), // an hour from now
        created_at: now(),
      })
      .execute();
    const guest = new TestClient(t.app, '10.77.2.3');
    const reset = (password: string) => guest.post('/api/reset-password', { email: m.email, token, ...pair(password) });
    const common = await reset('1qaz2wsx3edc');
    expect(common.status).toBe(422);
    expect((await common.json()).errors.password).toEqual([COMMON]);
    const local = m.email.split('@')[0] as string;
    const byEmail = await reset(`${local}-x`);
    expect(byEmail.status).toBe(422);
    expect((await byEmail.json()).errors.password).toEqual(['パスワードにメールアドレスの一部を含めることはできません。']);
    const byName = await reset('suzuki-ichiro-1');
    expect((await byName.json()).errors.password).toEqual(['パスワードにお名前（姓・名）を含めることはできません。']);
    // The same link still works with a good password.
    expect((await reset('amber-falcon-5512')).status).toBe(200);
    expect((await new TestClient(t.app, '10.77.2.4').login(m.email, 'amber-falcon-5512')).status).toBe(200);
  });

  it('refuses them at the member’s change and an administrator’s forced change; an old weak password still signs in', async () => {
    const email = `weak-${Date.now()}@example.jp`;
    const user = await aMember(t.runtime.deps.orm, {
      email,
      password: 'password',
      lastName: '古田',
      firstName: '弱子',
      emailVerified: true,
    });
    // Existing weak passwords keep working until changed.
    const m = new TestClient(t.app, '10.77.2.5');
    expect((await m.login(email, 'password')).status).toBe(200);
    const change = (new_password: string) =>
      m.put(`/api/users/${user.id}/password`, {
        old_password: 'password',
        new_password,
        new_password_confirmation: new_password,
      });
    const common = await change('123456789');
    expect(common.status).toBe(422);
    expect((await common.json()).errors.new_password).toEqual([
      '新しいパスワードはよく使われていて推測されやすいため使用できません。別のパスワードを入力してください。',
    ]);
    const byEmail = await change(`${email.split('@')[0]}!!`);
    expect((await byEmail.json()).errors.new_password).toEqual([
      '新しいパスワードにメールアドレスの一部を含めることはできません。',
    ]);
    const byName = await change('古田の新しい合言葉');
    expect((await byName.json()).errors.new_password).toEqual(['新しいパスワードにお名前（姓・名）を含めることはできません。']);

    const force = (new_password: string) =>
      admin.put(`/api/users/${user.id}/password/force`, { new_password, new_password_confirmation: new_password });
    expect((await force('letmein1')).status).toBe(422);
    expect((await (await force(`${email.split('@')[0]}-1`)).json()).errors.new_password).toEqual([
      '新しいパスワードにメールアドレスの一部を含めることはできません。',
    ]);
    expect((await change('copper-violin-2288')).status).toBe(200);
  });

  it('applies the same rules to npm run admin:create (newPasswordProblem)', async () => {
    expect(await newPasswordProblem('password', { email: 'root@example.jp' })).toBe(COMMON);
    expect(await newPasswordProblem('the-root-account', { email: 'root@example.jp' })).toBe(
      'パスワードにメールアドレスの一部を含めることはできません。',
    );
    expect(await newPasswordProblem('P@ssw0rd1', { email: 'root@example.jp' })).toMatch(/単純で推測されやすい/);
    expect(await newPasswordProblem('violet-anchor-3302', { email: 'root@example.jp' })).toBeNull();
  });
});

describe('names refuse line breaks, controls and bidi overrides', () => {
  it.each([
    ['last_name', '山田\r\n'],
    ['last_name', '山\n田'],
    ['first_name', '太郎\t'],
    ['first_name', '\u202e郎太'],
    ['affiliation_name', '〇〇消防\u2066局'],
    ['affiliation_name', '〇〇\u0085消防'],
    ['last_name', 'ab\u2069'],
  ])('%s = %j → 422', async (field, value) => {
    const guest = new TestClient(t.app, '10.77.3.1');
    const res = await guest.post('/api/users/registration/validate', registration({ [field]: value }));
    expect(res.status).toBe(422);
    expect((await res.json()).errors[field]?.[0]).toMatch(/使用できない文字/);
  });

  it('refuses them on the profile edit and in affiliation_other too', async () => {
    const m = await member();
    const base = (await (await m.client.get(`/api/users/${m.id}`)).json()).user;
    const edit = {
      email: m.email,
      email_confirmation: m.email,
      last_name: base.last_name,
      first_name: base.first_name,
      affiliations: 6,
      affiliation_name: '〇〇病院',
      affiliation_other: '救急\u202dセンター',
    };
    const res = await m.client.put(`/api/users/${m.id}`, edit);
    expect(res.status).toBe(422);
    expect(Object.keys((await res.json()).errors)).toEqual(['affiliation_other']);
    expect((await m.client.put(`/api/users/${m.id}`, { ...edit, affiliation_other: '救急センター' })).status).toBe(200);
  });
});

describe('hostile bodies and filters', () => {
  it('answers nested JSON 10,000 deep with a Japanese 400 on JSON endpoints, and normal depth still works', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const deepObject = `{"email":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`;
    const guest = new TestClient(t.app, '10.77.4.1');
    for (const body of [deep, deepObject]) {
      for (const path of ['/api/login', '/api/users/registration', '/api/forgot-password']) {
        const res = await guest.request('POST', path, { body, headers: { 'content-type': 'application/json' } });
        expect(res.status, path).toBe(400);
        expect((await res.json()).message).toBe('JSON の入れ子が深すぎます。');
      }
    }
    // Brackets inside strings are text, not nesting.
    const res = await guest.request('POST', '/api/forgot-password', {
      body: JSON.stringify({ email: `${'['.repeat(100)}@example.jp` }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(422);
  });

  it('refuses dates outside 2000–9999 on every admin filter with a Japanese 422', async () => {
    for (const day of ['0000-01-01', '0001-01-01', '1999-12-31']) {
      for (const path of [
        `/api/sales?paid_from=${day}`,
        `/api/sales?paid_to=${day}`,
        `/api/audit-logs?from=${day}`,
        `/api/audit-logs?to=${day}`,
        `/api/payments/events?from=${day}`,
        `/api/payments/events?to=${day}`,
        `/api/exports/preflight?paid_from=${day}`,
        `/api/exports/preflight?paid_to=${day}`,
      ]) {
        const res = await admin.get(path);
        expect(res.status, path).toBe(422);
        expect(JSON.stringify((await res.json()).errors), path).toMatch(/[日付]/);
      }
      expect((await admin.post('/api/exports', { paid_from: day })).status, day).toBe(422);
    }
    expect((await admin.get('/api/sales?paid_from=2000-01-01&paid_to=9999-12-31')).status).toBe(200);
    expect((await admin.get('/api/audit-logs?from=2000-01-01')).status).toBe(200);
  });
});

describe('tokens never reach a log line', () => {
  it('masks the reset and verification tokens in the request log', async () => {
    lines.length = 0;
    const secret = 'Zm9vYmFyYmF6cXV4LXJlc2V0LXRva2VuLXZhbHVl';
    await t.app.request(`/reset-password/${secret}?email=a%40example.jp`);
    await t.app.request(`/api/users/registration/verify/${secret}`);
    await t.app.request(`/api/users/email-change/verify/${secret}`);
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests.map((l) => l.path)).toEqual([
      '/reset-password/[redacted]',
      '/api/users/registration/verify/[redacted]',
      '/api/users/email-change/verify/[redacted]',
    ]);
    expect(JSON.stringify(lines)).not.toContain(secret);
  });

  it('masks them in any text field of any log line, and in Sentry-shaped objects', () => {
    expect(maskTokens('https://shop.example/reset-password/abc_DEF-123?email=x')).toBe(
      'https://shop.example/reset-password/[redacted]?email=x',
    );
    expect(maskTokens('GET /x?token=abc&y=1')).toBe('GET /x?token=[redacted]&y=1');
    lines.length = 0;
    t.runtime.deps.log.info('link sent', { url: 'http://x/api/users/registration/verify/s3cr3t-value' });
    expect(JSON.stringify(lines)).not.toContain('s3cr3t-value');
  });
});

describe('/readyz details', () => {
  const fromSocket = (address: string, headers: Record<string, string> = {}) =>
    t.app.request(
      '/readyz',
      { headers },
      { incoming: { socket: { remoteAddress: address, remotePort: 1, remoteFamily: 'IPv4' } } },
    );

  it('shows only {status}, with the same status code, to a client that is neither loopback nor the metrics scraper', async () => {
    const res = await fromSocket('198.51.100.7');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({ status: body.status });
    expect(JSON.stringify(body)).not.toMatch(/pool|workers|checks/);
    // A forged token is no token.
    expect(await (await fromSocket('198.51.100.7', { authorization: 'Bearer wrong-token-0123456789' })).json()).toEqual({
      status: body.status,
    });
  });

  it('shows the details to the metrics token and to loopback', async () => {
    const withToken = await (await fromSocket('198.51.100.7', { authorization: `Bearer ${TOKEN}` })).json();
    expect(withToken).toHaveProperty('checks.database', 'ok');
    expect(withToken).toHaveProperty('pool');
    const loopback = await (await fromSocket('127.0.0.1')).json();
    expect(loopback).toHaveProperty('checks.database', 'ok');
    const v6 = await (await fromSocket('::1')).json();
    expect(v6).toHaveProperty('checks');
  });
});

describe('the session cookie in production', () => {
  it('is __Host-: Secure, Path=/, no Domain (and the CSRF cookie is Secure, Path=/, no Domain)', async () => {
    const email = `host-${Date.now()}@example.jp`;
    await aMember(t.runtime.deps.orm, {
      email,
      password: 'granite-willow-6610',
      lastName: '本番',
      firstName: '確認',
      emailVerified: true,
    });
    const auth = createAuth({
      db: t.runtime.deps.orm.em.fork().getKysely() as never,
      secret: 'x'.repeat(40),
      baseUrl: 'https://shop.example',
      secureCookies: true,
    });
    const { headers } = await auth.api.signInEmail({ body: { email, password: 'granite-willow-6610' }, returnHeaders: true });
    const session = headers.getSetCookie().find((c) => c.includes('session_token'));
    expect(session).toMatch(/^__Host-better-auth\.session_token=/);
    expect(session).toMatch(/;\s*Secure/i);
    expect(session).toMatch(/;\s*Path=\/(;|$)/i);
    expect(session).not.toMatch(/Domain=/i);
    expect((await auth.$context).authCookies.sessionToken.name).toBe('__Host-better-auth.session_token');
  });
});
