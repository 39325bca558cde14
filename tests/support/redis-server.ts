import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from './ports.ts';

/** A private redis-server the test may stop and start again on the same port. */
export async function startPrivateRedis() {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const up = async () => {
    // Already running: a second server could not bind the port, and `child` would then name the one
    // that exited, leaving this one behind when the test stops it.
    if (child && child.exitCode === null && child.signalCode === null) return;
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'],
      {
        stdio: 'ignore',
      },
    );
    for (let i = 0; i < 50; i++) {
      const probe = new Redis({
        port,
        host: '127.0.0.1',
        lazyConnect: true,
        retryStrategy: () => null,
        enableOfflineQueue: false,
      });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        await probe.ping();
        probe.disconnect();
        return;
      } catch {
        probe.disconnect();
        await sleep(100);
      }
    }
    throw new Error('redis-server did not start');
  };
  const down = async () => {
    const c = child;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((resolve) => c.once('exit', resolve));
    c.kill('SIGKILL');
    await exited;
  };
  await up();
  return { url: `redis://127.0.0.1:${port}`, port, stop: down, start: up };
}
