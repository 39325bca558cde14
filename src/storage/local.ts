import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  assertKey,
  assertPrefix,
  type FileStore,
  type IncompleteWrite,
  type ListedFile,
  type StoredFile,
  typeOfKey,
} from './file-store.ts';

/** `.<name>.<pid>.<random>.tmp` beside the file it becomes. */
const TEMP = /^\.(.+)\.\d+\.[^.]+\.tmp$/;

const missing = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
};

/** Files in a directory (DATA_DIR): written to a temp file beside the target, then renamed over it. */
export class LocalFileStore implements FileStore {
  readonly driver = 'local';
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  #path(key: string): string {
    assertKey(key);
    return join(this.root, ...key.split('/'));
  }

  async put(key: string, body: Readable | Buffer, _options: { contentType: string }): Promise<void> {
    const path = this.#path(key);
    await mkdir(dirname(path), { recursive: true });
    const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomUUID()}.tmp`);
    try {
      if (Buffer.isBuffer(body)) await writeFile(temp, body, { flag: 'wx' });
      else await pipeline(body, createWriteStream(temp, { flags: 'wx' }));
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<StoredFile | undefined> {
    // Opened first: the length and the bytes are those of one file even if a put replaces it meanwhile.
    const handle = await open(this.#path(key), 'r').catch((error) => {
      if (missing(error)) return undefined;
      throw error;
    });
    if (!handle) return undefined;
    try {
      const info = await handle.stat();
      if (!info.isFile()) {
        await handle.close();
        return undefined;
      }
      return { stream: handle.createReadStream(), length: info.size, contentType: typeOfKey(key) };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.#path(key), { force: true });
  }

  async exists(key: string): Promise<boolean> {
    const info = await stat(this.#path(key)).catch((error) => {
      if (missing(error)) return undefined;
      throw error;
    });
    return info?.isFile() ?? false;
  }

  /** Every file under the directory the prefix names, as key and path. */
  async *#walk(prefix: string): AsyncGenerator<{ key: string; path: string; name: string }> {
    assertPrefix(prefix);
    const cut = prefix.lastIndexOf('/');
    const start = join(this.root, ...(cut < 0 ? [] : prefix.slice(0, cut).split('/')));
    const entries = await readdir(start, { recursive: true, withFileTypes: true }).catch((error) => {
      if (missing(error)) return [];
      throw error;
    });
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const path = join(entry.parentPath, entry.name);
      const key = relative(this.root, path).split(sep).join('/');
      yield { key, path, name: entry.name };
    }
  }

  async *list(prefix: string): AsyncIterable<ListedFile> {
    for await (const { key, path, name } of this.#walk(prefix)) {
      if (name.startsWith('.') || !key.startsWith(prefix) || key.split('/').some((s) => s.startsWith('.'))) continue;
      const info = await stat(path).catch(() => undefined);
      if (info) yield { key, size: info.size, modifiedAt: info.mtime };
    }
  }

  async *incomplete(prefix: string): AsyncIterable<IncompleteWrite> {
    for await (const { key: tempKey, path, name } of this.#walk(prefix)) {
      const target = TEMP.exec(name)?.[1];
      if (!target) continue;
      const key = `${tempKey.slice(0, tempKey.length - name.length)}${target}`;
      if (!key.startsWith(prefix)) continue;
      const info = await stat(path).catch(() => undefined);
      if (info) yield { key, modifiedAt: info.mtime, discard: () => rm(path, { force: true }) };
    }
  }

  close(): void {}
}
