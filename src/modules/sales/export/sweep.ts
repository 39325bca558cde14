import { db, millisecondsAgo, now } from '../../../db/kysely.ts';
import type { Em } from '../../../db/orm.ts';
import type { Logger } from '../../../lib/logger.ts';
import type { FileStore } from '../../../storage/file-store.ts';
import { discardUnfinished } from './build.ts';

export const EXPORT_INTERRUPTED =
  'CSVの作成が途中で止まりました（処理していたワーカーが停止しました）。「再実行」で作り直してください。';
const EXPORT_GAVE_UP = 'CSVの作成を何度か試みましたが完了できませんでした。「再実行」で作り直してください。';

interface SweepContextOfExports {
  em: Em;
  files: FileStore;
  graceMs: number;
  log: Logger;
  afterCommit(work: () => Promise<unknown>): Promise<void>;
}

export async function markExportFailed(
  ctx: Pick<SweepContextOfExports, 'em' | 'files' | 'afterCommit'>,
  exportId: string,
  reason = EXPORT_GAVE_UP,
): Promise<void> {
  await db(ctx.em)
    .updateTable('exports')
    .set({ state: 'failed', error: reason, finished_at: now() })
    .where('id', '=', exportId)
    .where('state', 'in', ['queued', 'running'])
    .execute();
  await ctx.afterCommit(() => discardUnfinished(ctx.files, (id) => id === exportId));
}

/** A running export whose job stopped saying it is alive is failed; exports still queued are delivered again. */
export async function sweepExports(ctx: SweepContextOfExports) {
  const exports = db(ctx.em);
  const stale = await exports
    .updateTable('exports')
    .set({ state: 'failed', error: EXPORT_INTERRUPTED, finished_at: now() })
    .where('state', '=', 'running')
    .where((eb) => eb(eb.fn.coalesce('heartbeat_at', 'started_at', 'created_at'), '<', millisecondsAgo(ctx.graceMs)))
    .returning('id')
    .execute();
  if (stale.length) ctx.log.warn('exports without a live job marked failed', { exports: stale.map((r) => r.id) });
  const running = await exports.selectFrom('exports').select('id').where('state', '=', 'running').execute();
  const live = new Set(running.map((r) => r.id));
  const failedNow = new Set(stale.map((r) => r.id));
  // A write of an export not running: left by a dead job. One younger than the grace period may belong
  // to a build that started after the query above, unless its export was just failed.
  const settled = Date.now() - ctx.graceMs;
  await ctx.afterCommit(async () => {
    const removed = await discardUnfinished(
      ctx.files,
      (id, modifiedAt) => failedNow.has(id) || (!live.has(id) && modifiedAt < settled),
    );
    if (removed) ctx.log.info('unfinished files of stopped exports discarded', { removed });
  });
  const queued = await exports
    .selectFrom('exports')
    .select('id')
    .where('state', '=', 'queued')
    .where('created_at', '<', millisecondsAgo(ctx.graceMs))
    .orderBy('created_at')
    .limit(100)
    .execute();
  return queued.map((r) => ({ name: 'ExportRequested' as const, payload: { exportId: r.id } }));
}
