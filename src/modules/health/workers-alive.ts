import type { AppDeps } from '../../http/context.ts';
import { recentWorkers } from './heartbeat.ts';

/** A screen's question is answered quickly or not at all: Redis slow or down is "unknown", never an error. */
const ASK_MS = 500;

/**
 * Whether any worker process has written a fresh heartbeat: exports, mail and payments wait for one
 * (screens say 「処理担当（ワーカー）が動いていません」). `null` when Redis cannot say (the screen then warns of nothing).
 */
export async function workersAlive(deps: Pick<AppDeps, 'redis' | 'queues'>): Promise<boolean | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const beats = await Promise.race([
      recentWorkers(deps.redis, deps.queues.mail.opts.prefix ?? 'bull'),
      new Promise<null>((done) => {
        timer = setTimeout(() => done(null), ASK_MS);
      }),
    ]);
    return beats === null ? null : beats.length > 0;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}
