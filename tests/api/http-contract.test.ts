import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkInputMessage } from '../../src/lib/field-labels.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

let t: TestRuntime;
beforeAll(async () => {
  t = await startTestRuntime({ webRoot: resolve(import.meta.dirname, '../../dist/web') });
});
afterAll(async () => t?.stop());

describe('CSRF (SPEC §6)', () => {
  it('issues a readable XSRF-TOKEN cookie', async () => {
    const res = await t.app.request('/api/csrf-token');
    expect(res.status).toBe(204);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('XSRF-TOKEN='));
    expect(cookie).toBeDefined();
    expect(cookie).not.toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
  });

  it.each([
    ['application/json', '{"email":"a@example.jp","password":"x"}'],
    ['application/x-www-form-urlencoded', 'email=a%40example.jp&password=x'],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--\r\n'],
    ['text/plain', 'hello'],
  ])('answers 419 without the header whatever the content type (%s)', async (type, body) => {
    const res = await t.app.request('/api/login', { method: 'POST', headers: { 'content-type': type }, body });
    expect(res.status).toBe(419);
    expect(await res.json()).toEqual({ message: 'CSRF token mismatch.' });
  });

  it('answers 419 for a header that does not match the cookie, or a forged cookie', async () => {
    const client = new TestClient(t.app);
    await client.get('/api/csrf-token');
    const res = await client.request('POST', '/api/logout', { headers: { 'x-xsrf-token': 'forged' }, csrf: false });
    expect(res.status).toBe(419);
    const forged = await t.app.request('/api/logout', {
      method: 'POST',
      headers: { cookie: 'XSRF-TOKEN=abc.def', 'x-xsrf-token': 'abc.def' },
    });
    expect(forged.status).toBe(419);
    const badEncoding = await t.app.request('/api/logout', {
      method: 'POST',
      headers: { cookie: 'XSRF-TOKEN=abc', 'x-xsrf-token': '%E0%A4%A' },
    });
    expect(badEncoding.status).toBe(419);
  });

  it('lets a matching header through', async () => {
    const client = new TestClient(t.app);
    const res = await client.post('/api/logout');
    expect(res.status).toBe(200);
  });
});

describe('errors', () => {
  const client = () => new TestClient(t.app);

  it('answers 400 for malformed JSON, a non-object body or a wrong content type', async () => {
    const c = client();
    for (const body of ['{bad', '[1,2]', '"text"', 'null', '']) {
      const res = await c.request('POST', '/api/login', { body, headers: { 'content-type': 'application/json' } });
      expect(res.status, body).toBe(400);
      expect((await res.json()).message).toMatch(/JSON/);
    }
    const res = await c.request('POST', '/api/login', { body: 'email=x', headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(400);
  });

  it('answers 422 in the seed shape with Japanese messages', async () => {
    const res = await client().post('/api/login', { email: 'not-an-email', password: 42 });
    expect(res.status).toBe(422);
    const body = await res.json();
    // SPEC §6's message; the SPA says what to fix from `errors` (field-labels, checked below).
    expect(body.message).toBe('不正な値が入力されました。');
    expect(checkInputMessage(Object.keys(body.errors))).toBe('入力内容を確認してください。（メールアドレス、パスワード）');
    expect(body.errors.email).toEqual(['メールアドレスの形式が正しくありません。']);
    expect(body.errors.password[0]).toBe('パスワードを入力してください。');
  });

  it('answers 413 for an oversized body', async () => {
    const res = await client().request('POST', '/api/login', {
      body: JSON.stringify({ email: 'a@example.jp', password: 'x'.repeat(2 * 1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect((await res.json()).message).toBe('送信されたデータが大きすぎます。');
  });

  it('answers 404 in JSON for an unknown API path, never the SPA', async () => {
    const res = await client().get('/api/nothing-here');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/json/);
    // Says what is missing, in the member's words (issue 21): no 「お探しの API」, no 「エラー: 」.
    expect(await res.json()).toEqual({ message: 'ページが見つかりません。' });
  });

  it('lists every field to fix, each once, in the order of the form', async () => {
    const res = await client().post('/api/users/registration/validate', {
      email: 'a@example.jp',
      email_confirmation: 'b@example.jp',
      last_name: '',
      first_name: '太郎',
      affiliations: 6,
      affiliation_name: '病院',
      affiliation_other: '',
      distribution: true,
      password: 'short',
      password_confirmation: 'short',
    });
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual(['errors', 'message']);
    const labels: Record<string, string> = {
      email_confirmation: 'メールアドレス（確認）',
      last_name: '姓',
      affiliation_other: 'その他の所属',
      password: 'パスワード',
    };
    expect(Object.keys(body.errors).sort()).toEqual(Object.keys(labels).sort());
    expect(body.message).toBe('不正な値が入力されました。');
    // What the SPA shows at the top: every field, by the name the form gives it (issue 21).
    // …in the order the form shows them, whatever order the answer lists them in.
    expect(checkInputMessage(Object.keys(body.errors))).toBe(
      '入力内容を確認してください。（メールアドレス（確認）、姓、その他の所属、パスワード）',
    );
  });
});

describe('headers and health', () => {
  it('sends security headers and no-store on API answers', async () => {
    const res = await t.app.request('/api/login');
    expect(res.headers.get('strict-transport-security')).toMatch(/max-age=(\d+)/);
    expect(Number(/max-age=(\d+)/.exec(res.headers.get('strict-transport-security') ?? '')?.[1])).toBeGreaterThanOrEqual(
      31536000,
    );
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-request-id')).toMatch(/.{8,}/);
  });

  it('over HTTP every answer carries the very headers it carries in process', async () => {
    const server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((ready) => server.once('listening', ready));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const html = await (await t.app.request('/login')).text();
      const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1] as string;
      const asks: [string, RequestInit?][] = [
        ['/api/login'],
        ['/api/licenses'],
        ['/api/no-such-thing'],
        ['/api/licenses', { method: 'HEAD' }],
        ['/api/logout', { method: 'POST' }],
        ['/api/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(2 * 1024 * 1024) }],
        ['/admin/users/123'],
        [asset],
        ['/assets/missing-file.js'],
        ['/healthz'],
      ];
      const SECURITY = [
        'content-security-policy',
        'cross-origin-opener-policy',
        'cross-origin-resource-policy',
        'origin-agent-cluster',
        'referrer-policy',
        'strict-transport-security',
        'x-content-type-options',
        'x-dns-prefetch-control',
        'x-download-options',
        'x-frame-options',
        'x-permitted-cross-domain-policies',
        'x-xss-protection',
      ];
      for (const [path, init] of asks) {
        const inProcess = await t.app.request(path, init);
        const overHttp = await fetch(`${base}${path}`, init);
        expect(overHttp.status, path).toBe(inProcess.status);
        for (const name of SECURITY) {
          expect(overHttp.headers.get(name), `${path} ${name}`).toBe(inProcess.headers.get(name));
          expect(overHttp.headers.get(name), `${path} ${name}`).not.toBeNull();
        }
        expect(overHttp.headers.get('x-request-id'), path).toMatch(/.{8,}/);
        if (path.startsWith('/api/')) expect(overHttp.headers.get('cache-control'), path).toBe('no-store');
        else expect(overHttp.headers.get('cache-control'), path).toBe(inProcess.headers.get('cache-control'));
      }
    } finally {
      await new Promise((closed) => server.close(closed));
    }
  });

  it('/healthz and /readyz', async () => {
    expect((await t.app.request('/healthz')).status).toBe(200);
    const ready = await t.app.request('/readyz');
    expect(ready.status).toBe(200);
    // A web process alone: it can serve (200), but no worker is heard from, so mail and exports wait.
    expect(await ready.json()).toMatchObject({ status: 'degraded', checks: { database: 'ok', redis: 'ok' }, workers: [] });
  });
});

describe('SPA serving', () => {
  it('falls back to index.html for deep links', async () => {
    const res = await t.app.request('/admin/users/123');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<div id="root">');
    expect(html).toContain('name="app-config"');
  });

  it('answers 404 (not HTML) for a missing file with an extension', async () => {
    const res = await t.app.request('/assets/missing-file.js');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).not.toMatch(/html/);
  });

  it('serves hashed assets with a long cache', async () => {
    const html = await (await t.app.request('/login')).text();
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    const res = await t.app.request(asset as string);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toContain('immutable');
  });
});
