import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { apiContract, type Contract, type OperationEntry } from '../support/contract.ts';
import { aLicense, aMember, anAdmin, aSale } from '../support/factories.ts';
import type { Schema } from '../support/fuzz-arbitraries.ts';
import { type FuzzRequest, type KnownIds, requestArbitrary } from '../support/fuzz-requests.ts';
import { TestClient } from '../support/http-client.ts';
import { freePort } from '../support/ports.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * A fuzzer driven by the OpenAPI document (docs/decisions/0041-openapi-contract.md), against the real
 * shop on a port with real PostgreSQL and Redis: for every operation, as a visitor, a member and an
 * enrolled administrator, valid requests built from its schemas and invalid ones (wrong types, missing
 * fields, huge and odd text, bad path ids and query values, broken bodies). Every answer must be
 * below 500, a status the operation documents, with the documented content type and a body that
 * validates against the document — Schemathesis's checks. Deterministic: a fixed seed (FUZZ_SEED to
 * replay another), a few runs per operation.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const VALID_RUNS = 2;
const INVALID_RUNS = 3;
/** Signing out and deleting one's own account would end the identity the rest of the run uses. */
const EXCLUDED = new Set(['POST /api/logout', 'POST /api/users/{id}/withdrawal']);

let t: TestRuntime;
let server: Server;
let baseUrl: string;
let contract: Contract;
const clients: Record<'visitor' | 'member' | 'administrator', TestClient> = {} as never;
const known: KnownIds = { number: [], uuid: [] };

/** TestClient speaks to the shop's port instead of `app.request()`. */
const remote = () => ({
  request: (path: string, init: RequestInit) => fetch(`${baseUrl}${path}`, { ...init, redirect: 'manual' }),
});

beforeAll(async () => {
  t = await startTestRuntime();
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  server = serve({ fetch: createApp(t.runtime.deps).fetch, port, hostname: '127.0.0.1' }) as Server;
  contract = await apiContract();
  const { orm } = t.runtime.deps;
  const member = await aMember(orm);
  const admin = await anAdmin(orm);
  const licenseId = await aLicense(orm);
  const saleId = await aSale(orm, licenseId, { userId: member.id });
  known.number.push(String(licenseId), String(saleId));
  known.uuid.push(member.id);
  clients.visitor = new TestClient(remote(), '198.51.100.1');
  clients.member = new TestClient(remote(), '198.51.100.2');
  clients.administrator = new TestClient(remote(), '198.51.100.3');
  expect((await clients.member.login(member.email, member.password)).status).toBe(200);
  expect((await clients.administrator.login(admin.email, admin.password)).status).toBe(200);
  console.info(`contract fuzz: seed ${SEED}, ${contract.operations.length} operations`);
}, 60_000);

afterAll(async () => {
  await new Promise<void>((done) => {
    server?.close(() => done());
    server?.closeAllConnections();
  });
  await t?.stop();
});

const resolve = (schema: Schema): Schema => {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.split('/').pop() as string;
  return resolve((contract.document.components?.schemas?.[name] ?? {}) as Schema);
};

/** A stable number per operation, so each one's samples do not move when another is added. */
const seedOf = (entry: OperationEntry) =>
  [...`${entry.method} ${entry.template}`].reduce((hash, ch) => (hash * 31 + ch.charCodeAt(0)) | 0, SEED);

/**
 * One request, sent again once on a reset connection: after an error answer to a body it did not
 * read, the shop closes the connection (src/app.ts), and fetch may already have picked that socket.
 */
async function send(client: TestClient, request: FuzzRequest): Promise<Response> {
  try {
    return await sendOnce(client, request);
  } catch {
    return sendOnce(client, request);
  }
}

async function sendOnce(client: TestClient, request: FuzzRequest): Promise<Response> {
  const unsafe = request.method !== 'GET';
  if (unsafe && !client.cookies.has('XSRF-TOKEN')) await client.request('GET', '/api/csrf-token');
  const headers: Record<string, string> = { 'x-forwarded-for': client.ip, ...request.headers };
  if (client.cookies.size) headers.cookie = client.cookieHeader();
  if (unsafe) headers['x-xsrf-token'] = decodeURIComponent(client.cookies.get('XSRF-TOKEN') ?? '');
  return fetch(`${baseUrl}${request.path}`, { method: request.method, headers, body: request.body, redirect: 'manual' });
}

async function fuzz(who: keyof typeof clients): Promise<string[]> {
  const failures: string[] = [];
  let sent = 0;
  for (const entry of contract.operations) {
    if (EXCLUDED.has(`${entry.method} ${entry.template}`)) continue;
    const access = String((entry.operation as { 'x-access'?: string })['x-access']);
    const allowed = access === 'public' || (who !== 'visitor' && (who === 'administrator' || access !== 'admin'));
    const arbitraries = requestArbitrary(entry, resolve, known, allowed);
    const seed = seedOf(entry);
    const requests = [
      ...fc.sample(arbitraries.valid, { seed, numRuns: VALID_RUNS }),
      ...fc.sample(arbitraries.invalid, { seed: seed + 1, numRuns: INVALID_RUNS }),
    ];
    for (const request of requests) {
      sent++;
      let res: Response;
      try {
        res = await send(clients[who], request);
      } catch (error) {
        failures.push(
          `[${who}, ${request.kind}] ${request.method} ${request.path.slice(0, 200)}: no answer (${String((error as Error).cause ?? error)})`,
        );
        continue;
      }
      const pathname = new URL(request.path, baseUrl).pathname;
      const target = contract.find(request.method, pathname) ?? entry;
      const problems = await contract.checkOperation(target, request.method, pathname, res);
      if (res.status >= 500)
        problems.unshift(`${request.method} ${request.path} → ${res.status}: ${(await res.text()).slice(0, 300)}`);
      else await res.body?.cancel();
      for (const problem of problems) failures.push(`[${who}, ${request.kind}] ${problem.slice(0, 600)}`);
    }
  }
  console.info(`contract fuzz (${who}): ${sent} requests, ${failures.length} failures`);
  return failures;
}

it.each(['visitor', 'member', 'administrator'] as const)(
  'as a %s, every operation answers valid and invalid requests as the document says, never with a 5xx',
  async (who) => {
    const failures = await fuzz(who);
    expect(failures.slice(0, 30)).toEqual([]);
  },
  180_000,
);

it('documents every /api route of the app, and serves the document without anyone’s data', async () => {
  const documented = new Set(contract.operations.map((o) => `${o.method} ${o.template}`));
  const app = createApp(t.runtime.deps);
  const missing = app.routes
    .filter((r) => r.path.startsWith('/api/') && r.method !== 'ALL' && !r.path.includes('*'))
    .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z_]+)(\{[^/]*\})?/g, '{$1}')}`)
    .filter((route) => !documented.has(route));
  expect([...new Set(missing)]).toEqual([]);

  const res = await fetch(`${baseUrl}/api/openapi.json`);
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(JSON.parse(text)).toMatchObject({ openapi: '3.1.0', info: { title: 'ライセンスショップ API' } });
  // The signed-in identities of this file exist in the database: none of them is in the document.
  expect(text).not.toMatch(/@example\.jp/);
  expect(text).not.toContain(t.runtime.deps.authSecret);
});

it('shows the document at /api/docs with Scalar, its script from this origin under the page’s own nonce', async () => {
  const res = await fetch(`${baseUrl}/api/docs`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  const policy = res.headers.get('content-security-policy') ?? '';
  const nonce = /'nonce-([A-Za-z0-9]+)'/.exec(policy)?.[1];
  expect(nonce).toBeDefined();
  expect(policy).toMatch(/script-src 'self' 'nonce-/);
  const html = await res.text();
  expect(html).toContain('<title>ライセンスショップ API リファレンス</title>');
  expect(html).toContain(`<script src="/api/docs/scalar.js" nonce="${nonce}"></script>`);
  expect(html).toContain(`nonce="${nonce}">\n      Scalar.createApiReference('#app'`);
  expect(html).toContain('"url": "/api/openapi.json"');
  expect(html).not.toMatch(/https?:\/\/(cdn|fonts)\./);
  // Every other answer keeps the shop's own policy.
  expect((await fetch(`${baseUrl}/api/login`)).headers.get('content-security-policy')).toMatch(/script-src 'self';/);
});
