import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './ports.ts';
import { eventually } from './wait.ts';

export const SENTINEL_NAME = 'shop-primary';

async function answers(port: number): Promise<boolean> {
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, enableOfflineQueue: false });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/**
 * A private Redis primary, one replica and `sentinelCount` Sentinels watching them (quorum: a majority),
 * all on free loopback ports with their files in a temporary directory.
 */
export async function startRedisWithSentinel(options: { sentinelCount?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'shop-sentinel-'));
  const children: ChildProcess[] = [];
  const spawnRedis = (args: string[]) => {
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    children.push(child);
    return child;
  };
  const dataArgs = (port: number) => [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--maxmemory-policy',
    'noeviction',
    '--dir',
    dir,
    '--dbfilename',
    `dump-${port}.rdb`,
  ];
  const primaryPort = await freePort();
  const replicaPort = await freePort();
  const servers = new Map<number, ChildProcess>();
  servers.set(primaryPort, spawnRedis(dataArgs(primaryPort)));
  servers.set(replicaPort, spawnRedis([...dataArgs(replicaPort), '--replicaof', '127.0.0.1', String(primaryPort)]));
  for (const port of [primaryPort, replicaPort]) await eventually(() => answers(port), 10_000, `redis-server on ${port}`);

  const count = options.sentinelCount ?? 3;
  const quorum = Math.floor(count / 2) + 1;
  const sentinelPorts: number[] = [];
  for (let i = 0; i < count; i++) {
    const port = await freePort();
    const conf = join(dir, `sentinel-${port}.conf`);
    writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${SENTINEL_NAME} 127.0.0.1 ${primaryPort} ${quorum}`,
        `sentinel down-after-milliseconds ${SENTINEL_NAME} 1000`,
        `sentinel failover-timeout ${SENTINEL_NAME} 5000`,
        `sentinel parallel-syncs ${SENTINEL_NAME} 1`,
        '',
      ].join('\n'),
    );
    spawnRedis([conf, '--sentinel']);
    sentinelPorts.push(port);
  }
  for (const port of sentinelPorts) await eventually(() => answers(port), 10_000, `sentinel on ${port}`);

  const sentinel = () => new Redis({ port: sentinelPorts[0], host: '127.0.0.1', maxRetriesPerRequest: 1 });
  /** The port Sentinel names as the primary now. */
  const primary = async (): Promise<number> => {
    const client = sentinel();
    try {
      const [, port] = (await client.call('sentinel', 'get-master-addr-by-name', SENTINEL_NAME)) as [string, string];
      return Number(port);
    } finally {
      client.disconnect();
    }
  };
  // Every Sentinel sees the replica (and each other) before a failover can be asked for.
  await eventually(
    async () => {
      for (const port of sentinelPorts) {
        const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
        try {
          const replicas = (await client.call('sentinel', 'replicas', SENTINEL_NAME)) as unknown[];
          const sentinels = (await client.call('sentinel', 'sentinels', SENTINEL_NAME)) as unknown[];
          if (replicas.length < 1 || sentinels.length < count - 1) return false;
        } finally {
          client.disconnect();
        }
      }
      return true;
    },
    30_000,
    'sentinels discovering the replica and each other',
  );

  return {
    primaryPort,
    replicaPort,
    sentinelPorts,
    name: SENTINEL_NAME,
    /** `REDIS_SENTINELS` for the shop. */
    sentinelsVariable: sentinelPorts.map((port) => `127.0.0.1:${port}`).join(','),
    primary,
    /** Asks Sentinel to promote the replica, and waits until the promoted server takes writes. */
    async failover(): Promise<number> {
      const before = await primary();
      const client = sentinel();
      try {
        await eventually(
          async () => (await client.call('sentinel', 'failover', SENTINEL_NAME)) === 'OK',
          15_000,
          'sentinel accepting the failover',
        );
      } finally {
        client.disconnect();
      }
      const after = await eventually(async () => {
        const port = await primary();
        return port !== before ? port : undefined;
      }, 30_000);
      await eventually(
        async () => {
          const promoted = new Redis({ port: after, host: '127.0.0.1', maxRetriesPerRequest: 1 });
          try {
            return /role:master/.test(await promoted.info('replication'));
          } finally {
            promoted.disconnect();
          }
        },
        15_000,
        'the promoted primary',
      );
      return after;
    },
    /** Kills the redis-server on `port` (SIGKILL). */
    kill(port: number) {
      servers.get(port)?.kill('SIGKILL');
    },
    async stop() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGKILL');
            }),
        ),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
