/**
 * Licence drafts in this browser's IndexedDB, so a reload or browser Back loses neither the text nor
 * the chosen picture files (kept as Blobs: sessionStorage holds only a few MB of strings). One record
 * per draft key, one per new picture, written once; drafts untouched for a week are dropped when the
 * store opens. Without IndexedDB (or when it fails) every call quietly does nothing: the form still
 * works, the draft just lives in memory only.
 */

const DB_NAME = 'license-drafts';
const DRAFTS = 'drafts';
const PICTURES = 'pictures';
const MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

export type StoredPictureRef =
  | { kind: 'stored'; filename: string; url: string; name: string }
  | { kind: 'new'; id: string; name: string };

export interface DraftRecord<V> {
  key: string;
  savedAt: number;
  values: V;
  pictures: StoredPictureRef[];
}

interface PictureRecord {
  /** `<draft key>|<picture id>` */
  id: string;
  file: File;
}

const pictureKey = (key: string, id: string) => `${key}|${id}`;
const picturesOf = (key: string) => IDBKeyRange.bound(`${key}|`, `${key}|\uffff`);

const result = <T>(request: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });

const finished = (tx: IDBTransaction) =>
  new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });

let opening: Promise<IDBDatabase | null> | null = null;

function database(): Promise<IDBDatabase | null> {
  opening ??= new Promise<IDBDatabase | null>((resolve) => {
    let request: IDBOpenDBRequest;
    try {
      request = indexedDB.open(DB_NAME, 1);
    } catch {
      resolve(null);
      return;
    }
    request.onupgradeneeded = () => {
      request.result.createObjectStore(DRAFTS, { keyPath: 'key' });
      request.result.createObjectStore(PICTURES, { keyPath: 'id' });
    };
    request.onsuccess = () => {
      const db = request.result;
      void prune(db).catch(() => undefined);
      resolve(db);
    };
    request.onerror = () => resolve(null);
    request.onblocked = () => resolve(null);
  });
  return opening;
}

async function prune(db: IDBDatabase): Promise<void> {
  const tx = db.transaction([DRAFTS, PICTURES], 'readwrite');
  const done = finished(tx);
  const records = (await result(tx.objectStore(DRAFTS).getAll())) as DraftRecord<unknown>[];
  for (const record of records) {
    if (record.savedAt >= Date.now() - MAX_AGE_MS) continue;
    tx.objectStore(DRAFTS).delete(record.key);
    tx.objectStore(PICTURES).delete(picturesOf(record.key));
  }
  await done;
}

async function attempt<T>(what: string, work: (db: IDBDatabase) => Promise<T>, fallback: T): Promise<T> {
  try {
    const db = await database();
    return db ? await work(db) : fallback;
  } catch (error) {
    console.warn(`ライセンスの入力内容を${what}できませんでした。`, error);
    return fallback;
  }
}

/** Writes a draft; picture files already stored under it are not written again, dropped ones are deleted. */
export function writeDraft<V>(record: DraftRecord<V>, files: Map<string, File>): Promise<void> {
  return attempt(
    'ブラウザに保存',
    async (db) => {
      const tx = db.transaction([DRAFTS, PICTURES], 'readwrite');
      const done = finished(tx);
      const pictures = tx.objectStore(PICTURES);
      tx.objectStore(DRAFTS).put(record);
      const present = new Set((await result(pictures.getAllKeys(picturesOf(record.key)))).map(String));
      const wanted = new Set([...files.keys()].map((id) => pictureKey(record.key, id)));
      for (const id of present) if (!wanted.has(id)) pictures.delete(id);
      for (const [id, file] of files) {
        if (!present.has(pictureKey(record.key, id)))
          pictures.put({ id: pictureKey(record.key, id), file } satisfies PictureRecord);
      }
      await done;
    },
    undefined,
  );
}

/** A stored draft with its picture files by picture id; a picture whose file is gone is left out. */
export function readDraft<V>(key: string): Promise<{ record: DraftRecord<V>; files: Map<string, File> } | null> {
  return attempt(
    '読み込み',
    async (db) => {
      const tx = db.transaction([DRAFTS, PICTURES], 'readonly');
      const record = (await result(tx.objectStore(DRAFTS).get(key))) as DraftRecord<V> | undefined;
      if (!record) return null;
      const stored = (await result(tx.objectStore(PICTURES).getAll(picturesOf(key)))) as PictureRecord[];
      const files = new Map(stored.map((p) => [p.id.slice(key.length + 1), p.file]));
      return { record: { ...record, pictures: record.pictures.filter((p) => p.kind === 'stored' || files.has(p.id)) }, files };
    },
    null,
  );
}

/** When a draft was last saved and how many pictures it holds, without reading its files. */
export function peekDraft(key: string): Promise<{ savedAt: number; pictureCount: number } | null> {
  return attempt(
    '読み込み',
    async (db) => {
      const record = (await result(db.transaction(DRAFTS, 'readonly').objectStore(DRAFTS).get(key))) as
        | DraftRecord<unknown>
        | undefined;
      return record ? { savedAt: record.savedAt, pictureCount: record.pictures.length } : null;
    },
    null,
  );
}

export function deleteDraft(key: string): Promise<void> {
  return attempt(
    '削除',
    async (db) => {
      const tx = db.transaction([DRAFTS, PICTURES], 'readwrite');
      const done = finished(tx);
      tx.objectStore(DRAFTS).delete(key);
      tx.objectStore(PICTURES).delete(picturesOf(key));
      await done;
    },
    undefined,
  );
}

/** Forgets every draft in this browser (sign-out: nothing typed stays behind on a shared PC). */
export function deleteAllDrafts(): Promise<void> {
  return attempt(
    '削除',
    async (db) => {
      const tx = db.transaction([DRAFTS, PICTURES], 'readwrite');
      const done = finished(tx);
      tx.objectStore(DRAFTS).clear();
      tx.objectStore(PICTURES).clear();
      await done;
    },
    undefined,
  );
}
