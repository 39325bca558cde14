import type { Env } from '../config/env.ts';
import type { Logger } from '../lib/logger.ts';
import type { FileStore } from './file-store.ts';

/**
 * The process's store: S3 when S3_BUCKET is set, else DATA_DIR. The S3 SDK is loaded only when used.
 * (Apart from file-store.ts, which both stores import: no cycle between the interface and its makers.)
 */
export async function createFileStore(env: Pick<Env, 'dataDir' | 's3'>, log?: Logger): Promise<FileStore> {
  if (env.s3) {
    const { S3FileStore } = await import('./s3.ts');
    return new S3FileStore(env.s3, { log });
  }
  const { LocalFileStore } = await import('./local.ts');
  return new LocalFileStore(env.dataDir);
}
