import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from '../../support/ports.ts';

/**
 * A redis-server of the suite's own on a free port, without AOF or snapshots, so a restart starts
 * empty as a Redis without `appendonly yes` does; `policy` sets `maxmemory-policy`.
 */
export async function startFaultRedis(options: { policy?: string } = {}) {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const ping = async () => {
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, enableOfflineQueue: false });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      await probe.ping();
      return true;
    } catch {
      return false;
    } finally {
      probe.disconnect();
    }
  };
  const start = async () => {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--maxmemory-policy',
        options.policy ?? 'noeviction',
      ],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 100; i++) {
      if (await ping()) return;
      await sleep(100);
    }
    throw new Error('redis-server did not start');
  };
  const stop = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((resolve) => c.once('exit', resolve));
    c.kill('SIGKILL');
    await exited;
  };
  const command = async (...args: string[]) => {
    const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
    try {
      return await client.call(args[0] as string, ...args.slice(1));
    } finally {
      client.disconnect();
    }
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop,
    /** Killed and started again on the same port: everything in it is gone. */
    async restart() {
      await stop();
      await start();
    },
    flushAll: () => command('FLUSHALL'),
    command,
  };
}
export type FaultRedis = Awaited<ReturnType<typeof startFaultRedis>>;
