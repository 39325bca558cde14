import { mutate } from 'swr';
import { authState } from '../../../lib/auth-store';
import { japanLocalInput } from '../../../lib/japan-time';
import { deleteAllDrafts, deleteDraft, peekDraft, readDraft, type StoredPictureRef, writeDraft } from './draft-store';
import { fetchLicense, type License } from './licenses';

/** A picture in the admin form: one already stored, or a new file chosen in the browser. */
export type DraftPicture =
  | { kind: 'stored'; filename: string; url: string; name: string }
  | { kind: 'new'; id: string; file: File; url: string; name: string };

export interface LicenseDraft {
  id: number | null;
  updatedAt: string | null;
  name: string;
  description: string;
  price: string;
  /** 公開 (members see and buy it) or 非公開. */
  published: boolean;
  /** 定員 (empty: none) and the sale period as datetime-local text in Japan time (empty: open). */
  capacity: string;
  saleStartsAt: string;
  saleEndsAt: string;
  /** In display order: stored and new pictures mixed as the administrator arranged them. */
  pictures: DraftPicture[];
}

export const MAX_PICTURES = 10;

/** What a screen may hand the form: it comes from its confirm screen, or asks for the latest licence (after a 409). */
export interface LicenseFormState {
  fromConfirm?: boolean;
  reloadLatest?: boolean;
}

/** 「12,000」「１２０００」「¥12,000」「12000円」 → 「12000」 (the server reads them the same way). */
export const normalizePrice = (text: string) => text.normalize('NFKC').replace(/[¥,円\s]/g, '');

export const emptyDraft = (): LicenseDraft => ({
  id: null,
  updatedAt: null,
  name: '',
  description: '',
  price: '',
  published: true,
  capacity: '',
  saleStartsAt: '',
  saleEndsAt: '',
  pictures: [],
});

function draftOf(license: License): LicenseDraft {
  return {
    id: license.id,
    updatedAt: license.updated_at,
    name: license.name,
    description: license.description,
    price: String(license.price),
    published: license.published,
    capacity: license.capacity === null ? '' : String(license.capacity),
    saleStartsAt: japanLocalInput(license.sale_starts_at),
    saleEndsAt: japanLocalInput(license.sale_ends_at),
    pictures: license.pictures.map((p) => ({
      kind: 'stored',
      filename: p.filename,
      url: p.url,
      name: p.original_name ?? p.filename,
    })),
  };
}

/** The licence as stored now, never a cached copy (the cache is refreshed with it). */
export async function latestDraft(id: string): Promise<LicenseDraft> {
  const data = await fetchLicense(id);
  void mutate(`/api/licenses/${id}`, data, { revalidate: false });
  return draftOf(data.license);
}

let sequence = 0;
/** An id for a newly chosen picture (crypto.randomUUID needs a secure context; plain http has none). */
export const newPictureId = () =>
  `${Date.now().toString(36)}-${(sequence++).toString(36)}-${Math.random().toString(36).slice(2)}`;

type DraftValues = Omit<LicenseDraft, 'pictures'>;
interface HeldDraft {
  draft: LicenseDraft;
  savedAt: number;
}

/**
 * The form's values, pictures included, from the form to its confirm screen and back, across browser
 * Back/Forward and reloads, until saved or abandoned. Kept in memory and in this browser's IndexedDB
 * (draft-store.ts), keyed by the signed-in administrator and the licence ('create' for a new one).
 */
const held = new Map<string, HeldDraft>();
let writes: Promise<void> = Promise.resolve();
const scoped = (key: string) => `${authState().users[0]?.id ?? 'guest'}:${key}`;

function revoke(draft: LicenseDraft | undefined) {
  for (const picture of draft?.pictures ?? []) if (picture.kind === 'new') URL.revokeObjectURL(picture.url);
}

export const licenseDrafts = {
  /** The draft, from memory or (after a reload) from the browser's storage. */
  async load(key: string): Promise<LicenseDraft | null> {
    const inMemory = held.get(scoped(key));
    if (inMemory) return inMemory.draft;
    await writes;
    const stored = await readDraft<DraftValues>(scoped(key));
    if (!stored) return null;
    const pictures = stored.record.pictures.map((p): DraftPicture => {
      if (p.kind === 'stored') return p;
      const file = stored.files.get(p.id) as File;
      return { kind: 'new', id: p.id, file, name: p.name, url: URL.createObjectURL(file) };
    });
    const draft = { ...stored.record.values, pictures };
    held.set(scoped(key), { draft, savedAt: stored.record.savedAt });
    return draft;
  },

  /** Whether a draft is waiting, when it was last saved and with how many pictures, without loading it. */
  async peek(key: string): Promise<{ savedAt: number; pictureCount: number } | null> {
    const inMemory = held.get(scoped(key));
    if (inMemory) return { savedAt: inMemory.savedAt, pictureCount: inMemory.draft.pictures.length };
    await writes;
    return peekDraft(scoped(key));
  },

  /** Keeps the draft; resolves once it is in the browser's storage (writes happen in call order). */
  save(key: string, draft: LicenseDraft): Promise<void> {
    const savedAt = Date.now();
    held.set(scoped(key), { draft, savedAt });
    const { pictures, ...values } = draft;
    const refs: StoredPictureRef[] = pictures.map((p) => (p.kind === 'stored' ? p : { kind: 'new', id: p.id, name: p.name }));
    const files = new Map(pictures.flatMap((p) => (p.kind === 'new' ? [[p.id, p.file] as const] : [])));
    const record = { key: scoped(key), savedAt, values, pictures: refs };
    writes = writes.then(() => writeDraft(record, files));
    return writes;
  },

  /** Forgets every draft of this browser (sign-out). */
  forgetAll(): Promise<void> {
    for (const { draft } of held.values()) revoke(draft);
    held.clear();
    writes = writes.then(() => deleteAllDrafts());
    return writes;
  },

  /** Forgets the draft, here and in the browser's storage (saved, abandoned, or replaced by the latest). */
  clear(key: string): Promise<void> {
    revoke(held.get(scoped(key))?.draft);
    held.delete(scoped(key));
    writes = writes.then(() => deleteDraft(scoped(key)));
    return writes;
  },
};

/**
 * The multipart the API reads: stored pictures to keep (`filenames[]`), new files (`file[]`), and the
 * full order (`order[]`: `stored:<filename>` / `new:<i>`), so new pictures may stand anywhere.
 */
export function toFormData(draft: LicenseDraft): FormData {
  const data = new FormData();
  data.append('name', draft.name);
  data.append('description', draft.description);
  data.append('price', normalizePrice(draft.price));
  data.append('published', draft.published ? 'true' : 'false');
  // Older drafts kept in the browser have none of these: sent empty, as the form shows them.
  data.append('capacity', draft.capacity ?? '');
  data.append('sale_starts_at', draft.saleStartsAt ?? '');
  data.append('sale_ends_at', draft.saleEndsAt ?? '');
  if (draft.updatedAt) data.append('updated_at', draft.updatedAt);
  let kept = 0;
  let added = 0;
  draft.pictures.forEach((picture, position) => {
    if (picture.kind === 'stored') {
      data.append(`filenames[${kept++}]`, picture.filename);
      data.append(`order[${position}]`, `stored:${picture.filename}`);
    } else {
      data.append(`file[${added}]`, picture.file, picture.name);
      data.append(`order[${position}]`, `new:${added++}`);
    }
  });
  return data;
}
