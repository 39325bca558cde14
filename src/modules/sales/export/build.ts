import { db, now } from '../../../db/kysely.ts';
import type { Em } from '../../../db/orm.ts';
import { AppError } from '../../../http/errors.ts';
import type { Logger } from '../../../lib/logger.ts';
import type { FileStore } from '../../../storage/file-store.ts';
import { Export } from '../entities/export.entity.ts';
import { resolveSearch, type SalesFilter } from '../service.ts';
import { csvEncoder, type ExportEncoding, exportContentType } from './encoding.ts';
import { exportFileKey, openExportFile } from './file.ts';
import { type ExportSource, records, spanOf } from './query.ts';

const PROGRESS_EVERY = 20_000;
/** The sweeper fails an export whose job stops saying it is alive. */
const HEARTBEAT_MS = 1_000;

/** Keyset batches keep memory flat; the store makes the file visible only once complete. */
export async function buildExport(
  em: Em,
  files: FileStore,
  groupName: string,
  exportId: string,
  log?: Logger,
): Promise<'done' | 'skipped'> {
  const row = await em.findOne(Export, { id: exportId });
  if (!row || row.state === 'done') return 'skipped';
  // A plain export's name search finds the members as they are when the file is built (as the list does).
  const source: ExportSource = row.batch ? { batchId: row.id } : { filter: await resolveSearch(em, row.filters as SalesFilter) };
  // The sales it holds from now on (a batch's were frozen at its creation).
  const span = await spanOf(em, source);
  row.totalRows = span.count;
  await db(em)
    .updateTable('exports')
    .set({
      state: 'running',
      error: null,
      row_count: 0,
      total_rows: row.totalRows ?? null,
      started_at: now(),
      heartbeat_at: now(),
      finished_at: null,
    })
    .where('id', '=', exportId)
    .execute();
  const key = exportFileKey(exportId);
  const file = openExportFile(files, key, exportContentType(row.encoding));
  let sha256: string;
  let count = 0;
  let reported = 0;
  let beat = Date.now();
  try {
    const encoder = csvEncoder(row.encoding as ExportEncoding, row.replaceUnmappable);
    await file.write(encoder.header());
    for await (const batch of records(em, source, span, groupName, encoder.person)) {
      await file.write(encoder.page(batch));
      count += batch.ids.length;
      if (count - reported >= PROGRESS_EVERY || Date.now() - beat >= HEARTBEAT_MS) {
        reported = count;
        beat = Date.now();
        await db(em).updateTable('exports').set({ row_count: count, heartbeat_at: now() }).where('id', '=', exportId).execute();
      }
    }
    sha256 = await file.finish();
  } catch (error) {
    await file.abort(error);
    if (error instanceof AppError) {
      // The sales themselves refuse the file (a character CP932 cannot hold): no retry can help.
      await db(em)
        .updateTable('exports')
        .set({ state: 'failed', error: error.message, finished_at: now() })
        .where('id', '=', exportId)
        .execute();
      return 'done';
    }
    await recordFailedAttempt(em, exportId, error, log);
    throw error;
  }
  await db(em)
    .updateTable('exports')
    .set({
      state: 'done',
      row_count: count,
      total_rows: count,
      file_name: key,
      sha256,
      finished_at: now(),
      last_error: null,
      last_error_at: null,
    })
    .where('id', '=', exportId)
    .execute();
  return 'done';
}

/** Not `failed`: 再実行 would race BullMQ's retry; only the job given up fails it. */
async function recordFailedAttempt(em: Em, exportId: string, error: unknown, log?: Logger) {
  const reason = `CSVを作成できませんでした: ${error instanceof Error ? error.message : String(error)}`.slice(0, 2000);
  log?.warn('export attempt failed; the job will be retried', { export: exportId, error: reason });
  try {
    await db(em.fork())
      .updateTable('exports')
      .set({ state: 'queued', last_error: reason, last_error_at: now(), heartbeat_at: null })
      .where('id', '=', exportId)
      .where('state', '=', 'running')
      .execute();
  } catch (recordError) {
    log?.warn('could not record the failed export attempt', { export: exportId, error: String(recordError) });
  }
}
