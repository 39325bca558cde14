import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { FileStore } from '../../../storage/file-store.ts';

const EXPORTS = 'exports/';
const EXPORT_KEY = /^exports\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(\.|$)/;
const WRITE_BUFFER_BYTES = 1024 * 1024;

/** Keyed by the export, so a failure and the sweeper find its unfinished write. */
export const exportFileKey = (exportId: string) => `${EXPORTS}${exportId}.csv`;
export const keyOfExportFile = (fileName: string) => (fileName.includes('/') ? fileName : `${EXPORTS}${fileName}`);

export interface ExportFile {
  write(bytes: Buffer): Promise<void>;
  finish(): Promise<string>;
  abort(error: unknown): Promise<void>;
}

/** The store makes the file visible only once it is complete. */
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
