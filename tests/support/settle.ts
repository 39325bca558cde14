import { vi } from 'vitest';
import type { Em, Orm } from '../../src/db/orm.ts';
import type { Queues } from '../../src/events/queues.ts';

/**
 * Waits until the background work has finished: every outbox event published and acknowledged by
 * each queue it routes to, and no job waiting or running in the shop's queues. Tests use it instead
 * of a quiet window (a fixed sleep) before asserting that something happened only once: when it
 * returns, any duplicate e-mail or sale would already be there. Delayed jobs (job schedulers) are
 * not waited for; a retry's event stays unacknowledged until it has run, so it is.
 */
export async function settled(
  deps: { orm: Orm; queues: Queues },
  what = 'the background work to finish',
  options: { since?: Date; timeoutMs?: number } = {},
): Promise<void> {
  // `since`: only events recorded from then on (an earlier test may leave one failed on purpose).
  const since = options.since ?? new Date(0);
  await vi.waitFor(
    async () => {
      const em = deps.orm.em.fork() as Em;
      const [row] = await em.execute<{ n: number }[]>(
        'select count(*)::int as n from outbox_events where (published_at is null or handled_at is null) and occurred_at >= ?',
        [since],
      );
      if (row?.n) throw new Error(`${what}: ${row.n} outbox events not handled yet`);
      for (const [name, queue] of Object.entries(deps.queues)) {
        const counts = await queue.getJobCounts('waiting', 'active', 'prioritized', 'waiting-children');
        const busy = Object.values(counts).reduce((sum, n) => sum + n, 0);
        if (busy) throw new Error(`${what}: ${busy} jobs waiting or running in ${name}`);
      }
    },
    { timeout: options.timeoutMs ?? 15_000, interval: 100 },
  );
}
