// File writing: an export's file in the file store (a temp file renamed, or an S3 upload), hashed as
// it is written, with back-pressure; and the discarding of writes a failed or dead build left.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { FileStore } from '../../../storage/file-store.ts';

const EXPORTS = 'exports/';
/** The export an unfinished write under EXPORTS belongs to (its key starts with the export's id). */
const EXPORT_KEY = /^exports\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(\.|$)/;
/** Bytes a build may have handed the store and not yet written (memory stays flat). */
const WRITE_BUFFER_BYTES = 1024 * 1024;

/** The file store key of an export's file: keyed by the export, so a failure and the sweeper find its unfinished write. */
export const exportFileKey = (exportId: string) => `${EXPORTS}${exportId}.csv`;
/** The file store key of a finished export's file (rows written before the file store hold only its name). */
export const keyOfExportFile = (fileName: string) => (fileName.includes('/') ? fileName : `${EXPORTS}${fileName}`);

/** A file being written into the store. */
export interface ExportFile {
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
export function openExportFile(files: FileStore, key: string, contentType: string): ExportFile {
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
