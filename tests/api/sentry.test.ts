import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { eventually } from '../support/wait.ts';

// A stand-in for Sentry's ingestion endpoint on loopback: the only network edge we fake.
let sentry: Server;
const envelopes: string[] = [];
let t: TestRuntime;

beforeAll(async () => {
  sentry = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      envelopes.push((req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body).toString('utf8'));
      res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((resolve) => sentry.listen(0, '127.0.0.1', resolve));
  const { port } = sentry.address() as AddressInfo;
  process.env.SENTRY_DSN = `http://publickey@127.0.0.1:${port}/1`;
  await import('../../src/instrument.ts');
  t = await startTestRuntime({
    env: { SENTRY_DSN: process.env.SENTRY_DSN },
  });
});
afterAll(async () => {
  await t?.stop();
  sentry?.close();
});

it('reports an unexpected server error to Sentry (environment released_production) and answers a Japanese 500', async () => {
  t.app.get('/__boom', () => {
    throw new Error('boom for sentry');
  });
  const res = await new TestClient(t.app).get('/__boom');
  expect(res.status).toBe(500);
  expect((await res.json()).message).toContain('サーバーでエラーが発生しました');
  const envelope = await eventually(
    async () => envelopes.find((e) => e.includes('boom for sentry')),
    10_000,
    'the Sentry envelope',
  );
  expect(envelope).toContain('"environment":"released_production"');
});

it('gives the browser the DSN at run time in index.html (it is never baked into the build)', async () => {
  const withSpa = createApp({ ...t.runtime.deps, webRoot: join(import.meta.dirname, '../../dist/web') });
  const html = await (await withSpa.request('/login')).text();
  const config = /name="app-config" content="([^"]+)"/.exec(html)?.[1] ?? '';
  const parsed = JSON.parse(config.replace(/&quot;/g, '"').replace(/&amp;/g, '&'));
  expect(parsed).toMatchObject({ sentryDsn: process.env.SENTRY_DSN, sentryEnvironment: 'released_production' });
});
