import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';

/**
 * A private HAProxy in front of `servers` on loopback, with its default health check as the README
 * advises it (`option httpchk GET /readyz`: HTTP/1.0, no Host header) and no retries, so that a request
 * a draining server drops reaches the client as a failure.
 */
export async function startHaproxy(
  servers: { name: string; port: number }[],
  options: { inter?: string; fall?: number; rise?: number } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), 'shop-haproxy-'));
  const [port, statsPort] = [await freePort(), await freePort()];
  const config = [
    'global',
    '  maxconn 1000',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  retries 0',
    'frontend shop',
    `  bind 127.0.0.1:${port}`,
    '  default_backend web',
    'backend web',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    `  default-server check inter ${options.inter ?? '300ms'} fall ${options.fall ?? 1} rise ${options.rise ?? 1}`,
    ...servers.map((s) => `  server ${s.name} 127.0.0.1:${s.port}`),
    'listen stats',
    `  bind 127.0.0.1:${statsPort}`,
    '  stats enable',
    '  stats uri /stats',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'haproxy.cfg'), config);
  const child: ChildProcess = spawn('/usr/sbin/haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise((done) => child.once('exit', done));

  /** A server's state as HAProxy sees it: `UP`, `DOWN`, … */
  async function state(name: string): Promise<string | undefined> {
    const csv = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)).text();
    const [header = '', ...rows] = csv.split('\n');
    const column = header.replace(/^# /, '').split(',').indexOf('status');
    return rows.map((row) => row.split(',')).find((cells) => cells[0] === 'web' && cells[1] === name)?.[column];
  }
  return {
    base: `http://127.0.0.1:${port}`,
    state,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
