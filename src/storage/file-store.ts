import type { Readable } from 'node:stream';

/** A stored file, opened: its bytes as a stream, their length, and its type. */
export interface StoredFile {
  stream: Readable;
  length: number;
  contentType: string;
}

export interface ListedFile {
  key: string;
  size: number;
  modifiedAt: Date;
}

/**
 * A write that never finished (a process died during it): a temp file (local) or a multipart upload
 * never completed (S3). `modifiedAt` is the last write (local) or when the upload began (S3).
 */
export interface IncompleteWrite {
  key: string;
  modifiedAt: Date;
  discard(): Promise<void>;
}

/**
 * Where pictures and exports live (docs/decisions/0022-file-storage.md): a directory under DATA_DIR
 * or an S3 bucket. Keys are `/`-separated relative names (`uploads/licenses/<name>`,
 * `exports/<id>.csv`); callers never build paths. A put is atomic: until it finishes, readers see
 * the previous file or none, never part of the new one.
 */
export interface FileStore {
  readonly driver: 'local' | 's3';
  put(key: string, body: Readable | Buffer, options: { contentType: string }): Promise<void>;
  /** The file, or undefined when there is none. */
  get(key: string): Promise<StoredFile | undefined>;
  /** Deletes the file; a key with no file is fine. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** Finished files whose keys start with `prefix`. */
  list(prefix: string): AsyncIterable<ListedFile>;
  /** Writes under `prefix` left unfinished (the sweeper discards those of dead processes). */
  incomplete(prefix: string): AsyncIterable<IncompleteWrite>;
  close(): void;
}

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** Keys are relative, `/`-separated, and no segment is empty or hidden (temp files start with a dot; `..` is hidden too). */
const isKey = (key: string) => key.split('/').every((segment) => SEGMENT.test(segment));

export function assertKey(key: string): void {
  if (!isKey(key)) throw new Error(`not a file store key: ${JSON.stringify(key)}`);
}

/** A prefix is the start of a key (possibly ending in `/` or mid-segment): some key goes on from it. */
export function assertPrefix(prefix: string): void {
  if (prefix !== '' && !isKey(`${prefix}x`)) throw new Error(`not a key prefix: ${prefix}`);
}

const TYPES: Record<string, string> = {
  csv: 'text/csv',
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  txt: 'text/plain',
  json: 'application/json',
};

/** The type a key's extension names (the local driver keeps no other record of it). */
export function typeOfKey(key: string): string {
  const dot = key.lastIndexOf('.');
  return (dot > key.lastIndexOf('/') && TYPES[key.slice(dot + 1).toLowerCase()]) || 'application/octet-stream';
}
