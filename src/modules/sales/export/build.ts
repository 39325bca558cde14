// The build of an export's file by the `exports` worker: query stream → encoder → file, with its
// progress and heartbeat saved as it goes, and its outcome recorded.
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

/** Which process starts the build, and whether an earlier attempt left it `running` (died or stalled). */
function logStart(row: Export, log: Logger | undefined, instance: string | undefined) {
  if (row.state === 'running') {
    log?.warn('export resumed after a stalled attempt', { export: row.id, instance, previousInstance: row.workerInstance });
  } else {
    log?.info('export started', { export: row.id, instance });
  }
}

/** Rows written between two saves of an export's progress. */
const PROGRESS_EVERY = 20_000;
/** How often a running export's job says it is alive (the sweeper fails one that stops). */
const HEARTBEAT_MS = 1_000;

/**
 * Builds the CSV of an export: rows read in keyset batches (memory stays flat), the members' current
 * details looked up per batch, written one CSV chunk per batch in csv-stringify's dialect (comma, CRLF,
 * formula cells as text; lib/csv.ts) streamed into the file store — UTF-8 with BOM, or CP932 — and
 * hashed; the store makes it visible only once complete. Progress (rows written) is saved as it goes.
 * A finished export is not built again; a failed or interrupted one is rebuilt from its frozen set.
 */
export async function buildExport(
  em: Em,
  files: FileStore,
  groupName: string,
  exportId: string,
  log?: Logger,
  instance?: string,
): Promise<'done' | 'skipped'> {
  const row = await em.findOne(Export, { id: exportId });
  if (!row || row.state === 'done') return 'skipped';
  logStart(row, log, instance);
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
      worker_instance: instance ?? null,
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

/**
 * An attempt failed for a reason a later one may not meet (the store unwritable, PostgreSQL gone): the
 * export waits for BullMQ's retry as `queued`, with the reason and time, in a statement of its own
 * (the caller rethrows). It is not `failed`: 再実行 would race the retry, and the screen would say the
 * export is over. Only the job given up (workers/index.ts → markExportFailed) fails it.
 */
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
