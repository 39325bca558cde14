import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { databaseAnswers, type Orm, poolStats } from '../../db/orm.ts';
import type { Logger } from '../../lib/logger.ts';

/** What a worker process last reported about itself (one field of the `<prefix>:health:workers` hash). */
export interface WorkerBeat {
  id: string;
  /** 'ok', or why PostgreSQL did not answer. */
  database: string;
  pool?: { total: number; idle: number; waiting: number };
  at: number;
}

const heartbeatKey = (prefix: string) => `${prefix}:health:workers`;
const HEARTBEAT_MS = 5_000;
/** A worker not heard from for this long is gone (stopped, killed, or cut off from Redis). */
const STALE_MS = 4 * HEARTBEAT_MS;

export interface WorkerHeartbeat {
  /** Whether this worker's last look at PostgreSQL found it answering. */
  databaseOk(): boolean;
  stop(): Promise<void>;
}

/**
 * The worker's health signal: every few seconds it asks PostgreSQL for `select 1` and writes the answer
 * (and the pool's counters) to Redis, where /readyz lists it; it logs each change between reachable and
 * unreachable. Jobs need no restart to recover: the pool drops dead connections and opens new ones.
 */
export function startWorkerHeartbeat(options: {
  orm: Orm;
  redis: Redis;
  prefix: string;
  log: Logger;
  intervalMs?: number;
  /** The process's name (INSTANCE_ID), as in its log lines. */
  id?: string;
}): WorkerHeartbeat {
  const { orm, redis, prefix, log } = options;
  const id = options.id ?? `${hostname()}:${process.pid}`;
  let ok = true;
  let running: Promise<void> | undefined;
  const beat = async () => {
    const database = (await databaseAnswers(orm)) ? 'ok' : 'PostgreSQL did not answer';
    if ((database === 'ok') !== ok) {
      ok = database === 'ok';
      if (ok) log.info('PostgreSQL に再接続しました (PostgreSQL reachable again); jobs continue');
      else log.warn('PostgreSQL に接続できません (PostgreSQL unreachable); jobs wait and retry');
    }
    const entry: WorkerBeat = { id, database, pool: await poolStats(orm).catch(() => undefined), at: Date.now() };
    await redis.hset(heartbeatKey(prefix), id, JSON.stringify(entry)).catch(() => undefined);
  };
  const tick = () => {
    running ??= beat()
      .catch(() => undefined)
      .finally(() => {
        running = undefined;
      });
  };
  tick();
  const timer = setInterval(tick, options.intervalMs ?? HEARTBEAT_MS);
  timer.unref();
  return {
    databaseOk: () => ok,
    async stop() {
      clearInterval(timer);
      await running;
      await redis.hdel(heartbeatKey(prefix), id).catch(() => undefined);
    },
  };
}

/** The workers heard from recently; forgets the others. */
export async function recentWorkers(redis: Redis, prefix: string): Promise<WorkerBeat[]> {
  const all = await redis.hgetall(heartbeatKey(prefix));
  const now = Date.now();
  const beats: WorkerBeat[] = [];
  const stale: string[] = [];
  for (const [field, value] of Object.entries(all)) {
    try {
      const beat = JSON.parse(value) as WorkerBeat;
      if (now - beat.at <= STALE_MS) beats.push(beat);
      else stale.push(field);
    } catch {
      stale.push(field);
    }
  }
  if (stale.length) await redis.hdel(heartbeatKey(prefix), ...stale).catch(() => undefined);
  return beats.sort((a, b) => a.id.localeCompare(b.id));
}
