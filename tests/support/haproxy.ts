import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { freePort } from './ports.ts';

const DEPLOY_DIR = resolve(import.meta.dirname, '../../deploy');

/**
 * `deploy/haproxy.cfg` as an operator installs it, adapted only in addresses and certificate: the
 * public binds, the servers and the stats bind move to loopback ports; the certificate is a throw-away
 * one for 127.0.0.1 that this process (and its fetch) trusts from now on. Throws when a line to
 * replace is no longer in the file, so the test cannot drift from it.
 */
export function haproxyConfigFromDeploy(
  servers: { name: string; port: number }[],
  ports: { https: number; http: number; stats: number },
): string {
  const source = readFileSync(join(DEPLOY_DIR, 'haproxy.cfg'), 'utf8');
  const replaced = new Set<string>();
  const lines = source.split('\n').flatMap((line) => {
    const replace = (kind: string, value: string | string[]) => {
      replaced.add(kind);
      return Array.isArray(value) ? value : [value];
    };
    if (/^\s*bind :80$/.test(line)) return replace('http', `  bind 127.0.0.1:${ports.http}`);
    if (/^\s*bind :443 /.test(line)) return replace('https', line.replace('bind :443 ', `bind 127.0.0.1:${ports.https} `));
    if (/^\s*bind 10\.0\.0\.10:8405$/.test(line)) return replace('stats', `  bind 127.0.0.1:${ports.stats}`);
    if (/^\s*server web\d+ /.test(line)) {
      return replaced.has('servers')
        ? []
        : replace(
            'servers',
            servers.map((s) => `  server ${s.name} 127.0.0.1:${s.port}`),
          );
    }
    return [line];
  });
  const missing = ['http', 'https', 'stats', 'servers'].filter((kind) => !replaced.has(kind));
  if (missing.length) throw new Error(`deploy/haproxy.cfg changed: no line to adapt for ${missing.join(', ')}`);
  return lines.join('\n');
}

/** A self-signed certificate for 127.0.0.1 and localhost, as HAProxy's `crt` file (certificate then key). */
function throwAwayCertificate(dir: string): { pem: string; certificate: string } {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const certificate = readFileSync(join(dir, 'cert.pem'), 'utf8');
  const pem = join(dir, 'shop.pem');
  writeFileSync(pem, certificate + readFileSync(join(dir, 'key.pem'), 'utf8'));
  return { pem, certificate };
}

/**
 * A private HAProxy running `deploy/haproxy.cfg` (see haproxyConfigFromDeploy) in front of `servers`
 * on loopback: TLS on `base`, the redirect on `httpBase`, its exporter and status page on `statsBase`.
 */
export async function startHaproxy(servers: { name: string; port: number }[]) {
  const dir = mkdtempSync(join(tmpdir(), 'shop-haproxy-'));
  const ports = { https: await freePort(), http: await freePort(), stats: await freePort() };
  writeFileSync(join(dir, 'haproxy.cfg'), haproxyConfigFromDeploy(servers, ports));
  const { pem, certificate } = throwAwayCertificate(dir);
  setDefaultCACertificates([...getCACertificates('default'), certificate]);
  const child: ChildProcess = spawn('/usr/sbin/haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SHOP_TLS_CERT: pem, SHOP_ERRORS_DIR: join(DEPLOY_DIR, 'haproxy') },
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise((done) => child.once('exit', done));
  const statsBase = `http://127.0.0.1:${ports.stats}`;

  /** A server's state as HAProxy sees it: `UP`, `DOWN`, … */
  async function state(name: string): Promise<string | undefined> {
    const csv = await (await fetch(`${statsBase}/stats;csv`)).text();
    const [header = '', ...rows] = csv.split('\n');
    const column = header.replace(/^# /, '').split(',').indexOf('status');
    return rows.map((row) => row.split(',')).find((cells) => cells[0] === 'web' && cells[1] === name)?.[column];
  }
  return {
    base: `https://127.0.0.1:${ports.https}`,
    httpBase: `http://127.0.0.1:${ports.http}`,
    statsBase,
    state,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A fetch for one client that connects from a loopback address of its own (`127.1.x.y`, any address of
 * 127/8 works on Linux). HAProxy appends the address it saw to X-Forwarded-For (`option forwardfor`)
 * and the shop trusts that last entry: through HAProxy, clients from one address would share every
 * per-address limit (60 registrations an hour), as one office behind one NAT does. Connections are
 * kept alive per client, as a browser keeps them; redirects are not followed.
 */
export function fetchFrom(address: string): (url: string, init?: RequestInit) => Promise<Response> {
  const agents = {
    'http:': new http.Agent({ keepAlive: true, localAddress: address }),
    'https:': new https.Agent({ keepAlive: true, localAddress: address }),
  };
  return async (url, init = {}) => {
    // A Request serialises the body as fetch would (JSON text, FormData with its boundary).
    const outgoing = new Request(url, { ...init, redirect: 'manual' });
    const body = init.body == null ? undefined : Buffer.from(await outgoing.arrayBuffer());
    const headers: Record<string, string> = Object.fromEntries(outgoing.headers);
    if (body) headers['content-length'] = String(body.length);
    const target = new URL(url);
    const transport = target.protocol === 'https:' ? https : http;
    return new Promise<Response>((resolve, reject) => {
      const request = transport.request(
        target,
        { method: outgoing.method, headers, agent: agents[target.protocol as 'http:' | 'https:'] },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('error', reject);
          incoming.on('end', () => {
            const answer = new Headers();
            for (let i = 0; i < incoming.rawHeaders.length; i += 2) {
              answer.append(incoming.rawHeaders[i] as string, incoming.rawHeaders[i + 1] as string);
            }
            const status = incoming.statusCode ?? 0;
            const empty = status === 204 || status === 304 || outgoing.method === 'HEAD';
            resolve(
              new Response(empty ? null : Buffer.concat(chunks), { status, statusText: incoming.statusMessage, headers: answer }),
            );
          });
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  };
}
