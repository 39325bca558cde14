import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { aMember, anAdmin } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * ADMIN_ALLOWED_NETWORKS against real source addresses: the app listens on a socket and each request
 * leaves from a chosen local address (127.0.0.1 and ::1 allowed, 127.0.0.2 and 127.0.0.3 not).
 */
let t: TestRuntime;
let server: ReturnType<typeof serve>;
let port: number;
let admin: TestClient;
let member: TestClient;
let memberId: string;

function from(localAddress: string, path: string, client: TestClient) {
  const host = localAddress.includes(':') ? '::1' : '127.0.0.1';
  return new Promise<{ status: number; body: { code?: string; message?: string } & Record<string, unknown> }>((done, fail) => {
    const req = request({ host, port, path, localAddress, headers: { cookie: client.cookieHeader() } }, (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => done({ status: res.statusCode ?? 0, body: JSON.parse(text || '{}') }));
    });
    req.on('error', fail);
    req.end();
  });
}

beforeAll(async () => {
  t = await startTestRuntime({ env: { ADMIN_ALLOWED_NETWORKS: '127.0.0.1/32, ::1/128' } });
  server = serve({ fetch: createApp(t.runtime.deps).fetch, port: 0, hostname: '::' });
  await new Promise((done) => server.once('listening', done));
  port = (server.address() as AddressInfo).port;
  const account = await anAdmin(t.runtime.deps.orm);
  admin = new TestClient(t.app, '127.0.0.1');
  await admin.login(account.email, account.password);
  const m = await aMember(t.runtime.deps.orm);
  memberId = m.id;
  member = new TestClient(t.app, '127.0.0.2');
  await member.login(m.email, m.password);
});
afterAll(async () => {
  await new Promise((done) => server?.close(done));
  await t?.stop();
});

const refusals = async () =>
  (await from('127.0.0.1', '/api/audit-logs?action=admin.network_refused', admin)).body as {
    total: number;
    audit_logs: { changes: { field: string; after: string }[] }[];
  };

describe('ADMIN_ALLOWED_NETWORKS', () => {
  it('lets staff in from an allowed IPv4 or IPv6 address', async () => {
    expect((await from('127.0.0.1', '/api/sales', admin)).status).toBe(200);
    expect((await from('::1', '/api/sales', admin)).status).toBe(200);
  });

  it('refuses staff from elsewhere with 403 admin_network_refused, audited once per session and address', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await from('127.0.0.2', '/api/sales', admin);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('admin_network_refused');
      expect(res.body.message).toMatch(/ネットワーク/);
    }
    expect((await from('127.0.0.2', '/api/dashboard', admin)).body.code).toBe('admin_network_refused');
    expect((await refusals()).total).toBe(1);
    expect((await from('127.0.0.3', '/api/users', admin)).body.code).toBe('admin_network_refused');
    const log = await refusals();
    expect(log.total).toBe(2);
    expect(log.audit_logs.map((e) => e.changes.find((c) => c.field === 'ip')?.after).sort()).toEqual([
      '::ffff:127.0.0.2',
      '::ffff:127.0.0.3',
    ]);
  });

  it('leaves members alone', async () => {
    expect((await from('127.0.0.2', `/api/users/${memberId}`, member)).status).toBe(200);
    expect((await from('127.0.0.2', `/api/sales/user/${memberId}`, member)).status).toBe(200);
  });
});
