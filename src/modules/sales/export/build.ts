// The build of an export's file by the `exports` worker: query stream → encoder → file, with its
// progress and heartbeat saved as it goes, and its outcome recorded.

import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { db, now } from '../../../db/kysely.ts';
import type { Em } from '../../../db/orm.ts';
import { AppError } from '../../../http/errors.ts';
import type { EventHandler } from '../../../jobs/context.ts';
import type { Logger } from '../../../lib/logger.ts';
import type { FileStore } from '../../../storage/file-store.ts';
import { Export } from '../entities/export.entity.ts';
import { resolveSearch, type SalesFilter } from '../sales-filter.ts';
import { csvEncoder, type ExportEncoding, exportContentType } from './csv.ts';
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
/** The sweeper fails an export whose job stops saying it is alive. */
const HEARTBEAT_MS = 1_000;

/** Keyset batches keep memory flat; the store makes the file visible only once complete. */
async function buildExport(
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

const REASONS: Record<string, string> = {
  ENOSPC: '保存先の容量が足りません。',
  EACCES: '保存先に書き込む権限がありません。',
  EPERM: '保存先に書き込む権限がありません。',
  EEXIST: '保存先のフォルダを用意できませんでした。',
  ENOENT: '保存先のフォルダが見つかりませんでした。',
  EROFS: '保存先が読み取り専用です。',
};

/** What an administrator reads: the cause in Japanese, never a server path (the log keeps the error itself). */
function failureReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const cause = typeof code === 'string' && REASONS[code] ? REASONS[code] : '一時的な障害が起きました。';
  return `CSVを作成できませんでした。${cause}詳しくはサーバーのログをご確認ください。`;
}

/** Not `failed`: 再実行 would race BullMQ's retry; only the job given up fails it. */
async function recordFailedAttempt(em: Em, exportId: string, error: unknown, log?: Logger) {
  const reason = failureReason(error);
  log?.warn('export attempt failed; the job will be retried', { export: exportId, error: String(error) });
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

const EXPORTS = 'exports/';
/** The export an unfinished write under EXPORTS belongs to (its key starts with the export's id). */
const EXPORT_KEY = /^exports\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(\.|$)/;
/** Bytes a build may have handed the store and not yet written (memory stays flat). */
const WRITE_BUFFER_BYTES = 1024 * 1024;

/** The file store key of an export's file: keyed by the export, so a failure and the sweeper find its unfinished write. */
const exportFileKey = (exportId: string) => `${EXPORTS}${exportId}.csv`;
/** The file store key of a finished export's file (rows written before the file store hold only its name). */
export const keyOfExportFile = (fileName: string) => (fileName.includes('/') ? fileName : `${EXPORTS}${fileName}`);

/** A file being written into the store. */
interface ExportFile {
  /** Hashes and writes one chunk, waiting while the store is behind (memory stays flat). */
  write(bytes: Buffer): Promise<void>;
  /** Ends the file and waits until the store holds it whole: its SHA-256 (hex). */
  finish(): Promise<string>;
  /** Gives the file up: the store discards what it was given (a temp file removed, a multipart upload aborted). */
  abort(error: unknown): Promise<void>;
}

/**
 * Opens `key` for writing: chunks go through a PassThrough (WRITE_BUFFER_BYTES high-water mark) that
 * the store's `put` consumes, and the hash is taken on the same chunks. The store makes the file
 * visible only once it is complete.
 */
function openExportFile(files: FileStore, key: string, contentType: string): ExportFile {
  const hash = createHash('sha256');
  const out = new PassThrough({ highWaterMark: WRITE_BUFFER_BYTES });
  const stored = files.put(key, out, { contentType });
  const failed = new Promise<never>((_, reject) => {
    stored.catch(reject);
    out.once('error', reject);
  });
  failed.catch(() => undefined);
  return {
    async write(bytes) {
      hash.update(bytes);
      if (!out.write(bytes)) await Promise.race([once(out, 'drain'), failed]);
    },
    async finish() {
      out.end();
      await stored;
      return hash.digest('hex');
    },
    async abort(error) {
      out.destroy(error instanceof Error ? error : new Error(String(error)));
      await stored.catch(() => undefined);
    },
  };
}

/** Unfinished writes of exports (temp files, multipart uploads) that `whose` names, discarded. */
export async function discardUnfinished(
  files: FileStore,
  whose: (exportId: string, modifiedAt: number) => boolean,
): Promise<number> {
  let removed = 0;
  for await (const write of files.incomplete(EXPORTS)) {
    const id = EXPORT_KEY.exec(write.key)?.[1];
    if (id && whose(id, write.modifiedAt.getTime())) {
      await write.discard();
      removed++;
    }
  }
  return removed;
}

/** ExportRequested → the CSV file (idempotent: a finished export is not built again). */
export const onExportRequested: EventHandler<'ExportRequested'> = (ctx, event) =>
  buildExport(ctx.em, ctx.files, ctx.env.exportGroupName, event.payload.exportId, ctx.log, ctx.env.instanceId);
