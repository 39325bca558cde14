import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestServer } from '../support/server.ts';

let app: Awaited<ReturnType<typeof startTestServer>>;
let admin: TestClient;
let member: TestClient;
let memberId: string;

beforeAll(async () => {
  app = await startTestServer({ mode: 'web' });
  await createOrPromoteAdmin(app.runtime.deps.orm, { email: 'hostile-admin@example.jp', password: 'hostile-admin-1' });
  memberId = (
    await aMember(app.runtime.deps.orm, {
      email: 'hostile-member@example.jp',
      password: 'hostile-member-1',
      lastName: '会員',
      firstName: '一',
      emailVerified: true,
    })
  ).id;
  admin = new TestClient(app.app, '10.90.0.1');
  await admin.login('hostile-admin@example.jp', 'hostile-admin-1');
  member = new TestClient(app.app, '10.90.0.2');
  await member.login('hostile-member@example.jp', 'hostile-member-1');
}, 60_000);
afterAll(async () => app?.stop());

const registration = (patch: Record<string, unknown>) => ({
  email: 'new-hostile@example.jp',
  email_confirmation: 'new-hostile@example.jp',
  last_name: '山田',
  first_name: '太郎',
  affiliations: 4,
  affiliation_name: '〇〇消防',
  affiliation_other: '',
  distribution: true,
  password: 'new-pass-1234',
  password_confirmation: 'new-pass-1234',
  ...patch,
});

describe('no 5xx from anything a client sends', () => {
  it('answers over-long passwords (by characters or bytes) with a Japanese 422 at sign-in, registration, change and reset', async () => {
    const guest = new TestClient(app.app, '10.90.0.3');
    for (const password of ['a'.repeat(73), 'a'.repeat(1000), '😀'.repeat(40), '𠮷'.repeat(72)]) {
      const signIn = await guest.post('/api/login', { email: 'hostile-member@example.jp', password });
      expect(signIn.status, password.slice(0, 3)).toBe(422);
      expect((await signIn.json()).errors.password[0]).toBe('パスワードは72文字以内で入力してください。');
      const register = await guest.post('/api/users/registration', registration({ password, password_confirmation: password }));
      expect(register.status).toBe(422);
      const change = await member.put(`/api/users/${memberId}/password`, {
        old_password: password,
        new_password: password,
        new_password_confirmation: password,
      });
      expect(change.status).toBe(422);
      const reset = await guest.post('/api/reset-password', {
        email: 'hostile-member@example.jp',
        token: 'x'.repeat(43),
        password,
        password_confirmation: password,
      });
      expect(reset.status).toBe(422);
    }
  });

  it('refuses impossible dates in the sales list and the export filters with 422', async () => {
    for (const day of ['2024-02-30', '2026-13-01', '2026-04-31', '0000-00-00']) {
      expect((await admin.get(`/api/sales?paid_from=${day}`)).status, day).toBe(422);
      expect((await admin.get(`/api/sales?paid_to=${day}`)).status, day).toBe(422);
      expect((await admin.post('/api/exports', { paid_from: day })).status, day).toBe(422);
    }
    expect((await admin.get('/api/sales?paid_from=2024-02-29')).status).toBe(200);
  });

  it('refuses NUL, other control characters and lone surrogates in every text field with a Japanese 422, changing nothing', async () => {
    const hostile = ['a\u0000b', 'a\u0007b', 'a\u001bb', 'a\u007fb', 'a\ud800b', 'a\udfffb'];
    for (const text of hostile) {
      const label = JSON.stringify(text);
      const register = await new TestClient(app.app, '10.90.0.4').post(
        '/api/users/registration/validate',
        registration({ last_name: text }),
      );
      expect(register.status, label).toBe(422);
      expect((await register.json()).errors.last_name[0], label).toBe('使用できない文字（制御文字など）が含まれています。');
      // A lone surrogate cannot even be written in a URL; the rest can.
      if (text.isWellFormed()) {
        expect((await admin.get(`/api/sales?q=${encodeURIComponent(text)}`)).status, label).toBe(422);
        expect((await admin.get(`/api/users?name=${encodeURIComponent(text)}`)).status, label).toBe(422);
      }
      // Multipart carries UTF-8: a lone surrogate arrives as U+FFFD, which the receipt font cannot draw.
      const form = new FormData();
      form.set('name', text);
      form.set('description', '');
      form.set('price', '1000');
      const multipart = await admin.request('POST', '/api/licenses/create/validate', { body: form });
      expect(multipart.status, label).toBe(422);
      expect(
        (
          await member.put(`/api/users/${memberId}`, {
            ...registration({ email: 'hostile-member@example.jp', email_confirmation: 'hostile-member@example.jp' }),
            first_name: text,
          })
        ).status,
        label,
      ).toBe(422);
    }
    // Line breaks and tabs are text (a licence's description has paragraphs).
    const form = new FormData();
    form.set('name', 'BLS');
    form.set('description', '一行目\r\n二行目\tタブ');
    form.set('price', '1000');
    expect((await admin.request('POST', '/api/licenses/create/validate', { body: form })).status).toBe(200);
    const rows = await app.runtime.deps.orm.em
      .fork()
      .execute("select count(*)::int as n from users where email = 'new-hostile@example.jp'");
    expect(rows[0]?.n).toBe(0);
  });
});

describe('early answers close cleanly', () => {
  /** One request on a keep-alive agent; the body is sent in full by the client whatever the server does. */
  function send(agent: Agent, method: string, path: string, body?: Buffer, headers: Record<string, string> = {}) {
    return new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const url = new URL(path, app.baseUrl);
      const req = httpRequest(
        {
          agent,
          method,
          hostname: url.hostname,
          port: url.port,
          path: url.pathname,
          headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  it('tells a keep-alive client to reconnect after refusing a body it did not read, so the next request works', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const big = Buffer.alloc(6 * 1024 * 1024, 0x61);
      // Without a session or CSRF token: refused (419) before the 6 MB body is read.
      const refused = await send(agent, 'POST', '/api/licenses/create', big, {
        'content-type': 'multipart/form-data; boundary=x',
      });
      expect(refused.status).toBe(419);
      expect(refused.connection).toBe('close');
      const next = await send(agent, 'GET', '/healthz');
      expect(next.status).toBe(200);
      // JSON over the 1 MB limit: 413, and the connection is given up again.
      const tooLarge = await send(agent, 'POST', '/api/forgot-password', Buffer.alloc(2 * 1024 * 1024, 0x20), {
        'content-type': 'application/json',
      });
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.connection).toBe('close');
      expect((await send(agent, 'GET', '/healthz')).status).toBe(200);
    } finally {
      agent.destroy();
    }
  });
});

describe('every route of the route table', () => {
  const FIELDS = [
    'email',
    'email_confirmation',
    'password',
    'password_confirmation',
    'old_password',
    'new_password',
    'new_password_confirmation',
    'last_name',
    'first_name',
    'affiliations',
    'affiliation_name',
    'affiliation_other',
    'distribution',
    'licenseId',
    'status',
    'saleIds',
    'expected_count',
    'reason',
    'q',
    'paid_from',
    'paid_to',
    'license_id',
    'encoding',
    'batch',
    'replace_unmappable',
    'token',
    'name',
    'description',
    'price',
    'updated_at',
  ];
  const hostileValues: unknown[] = [
    null,
    7,
    -1,
    1e308,
    true,
    [],
    {},
    [1, 'x'],
    { $ne: 1 },
    '',
    ' ',
    'a'.repeat(5000),
    'a\u0000b',
    '2024-02-30',
    '=1+2',
    '😀',
  ];
  const queries = [
    '?page=x&per_page=-1',
    '?status=9&license_id=abc',
    '?paid_from=2024-02-30&paid_to=x',
    '?sort=x&affiliations=9&q=%00',
    '?page=99999999999',
  ];
  const japanese = /[\u3040-\u30ff\u4e00-\u9fff]/;

  it('answers hostile payloads without a 5xx, and every 422 speaks Japanese', async () => {
    const routes = new Map<string, { method: string; path: string }>();
    // Signing out, deleting the member and forcing a password (「2024-02-30」 is a valid one) end the
    // sessions this walk uses; their hostile inputs are covered above and in no-500.test.ts.
    const skip = [
      'POST /api/logout',
      'DELETE /api/users/:id{[0-9a-fA-F-]+}/force',
      'PUT /api/users/:id{[0-9a-fA-F-]+}/password/force',
    ];
    for (const r of app.app.routes) {
      const key = `${r.method} ${r.path}`;
      if (r.path.startsWith('/api/') && r.method !== 'ALL' && !r.path.includes('*') && !skip.includes(key)) routes.set(key, r);
    }
    const failures: string[] = [];
    const english: string[] = [];
    for (const { method, path } of routes.values()) {
      const url = path
        .replace(/:id\{\[0-9\]\+\}/g, '1')
        .replace(/:id\{\[0-9a-fA-F-\]\+\}/g, memberId)
        .replace(/:[a-z]+(\{[^}]*\})?/gi, '00000000-0000-4000-8000-000000000000');
      const bodies =
        method === 'GET'
          ? queries.map((q) => ({ url: url + q }))
          : hostileValues.map((value) => ({ url, json: Object.fromEntries(FIELDS.map((f) => [f, value])) }));
      for (const client of [admin, member]) {
        for (const { url: target, json } of bodies as { url: string; json?: unknown }[]) {
          const res = await client.request(method, target, json === undefined ? {} : { json });
          const label = `${method} ${target.slice(0, 80)} ${JSON.stringify(json)?.slice(0, 60) ?? ''}`;
          if (res.status >= 500) failures.push(`${label} → ${res.status} ${await res.text()}`);
          else if (res.status === 422) {
            const body = (await res.json()) as { message: string; errors?: Record<string, string[]> };
            for (const text of [body.message, ...Object.values(body.errors ?? {}).flat()]) {
              if (!japanese.test(text)) english.push(`${label}: ${text}`);
            }
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect([...new Set(english)]).toEqual([]);
    // Both walked signed in all along (a signed-out walk would only have met 401s).
    expect((await (await admin.get('/api/login')).json()).users).toHaveLength(1);
    expect((await (await member.get('/api/login')).json()).users).toHaveLength(1);
  }, 180_000);
});
