/** A picture in the admin form: one already stored, or a new file chosen in the browser. */
export type DraftPicture =
  | { kind: 'stored'; filename: string; url: string; name: string }
  | { kind: 'new'; file: File; url: string; name: string };

export interface LicenseDraft {
  id: number | null;
  updatedAt: string | null;
  name: string;
  description: string;
  price: string;
  /** 公開 (members see and buy it) or 非公開. */
  published: boolean;
  pictures: DraftPicture[];
}

export const MAX_PICTURES = 10;

/** 「12,000」「１２０００」「¥12,000」「12000円」 → 「12000」 (the server reads them the same way). */
export const normalizePrice = (text: string) => text.normalize('NFKC').replace(/[¥,円\s]/g, '');

export const emptyDraft = (): LicenseDraft => ({
  id: null,
  updatedAt: null,
  name: '',
  description: '',
  price: '',
  published: true,
  pictures: [],
});

/**
 * The form's values on their way to the confirm screen and back. In memory only: new pictures are
 * File objects. A draft is keyed by the licence it edits ('create' for a new one).
 */
const drafts = new Map<string, LicenseDraft>();
export const licenseDrafts = {
  get: (key: string) => drafts.get(key) ?? null,
  set: (key: string, draft: LicenseDraft) => drafts.set(key, draft),
  clear: (key: string) => {
    for (const picture of drafts.get(key)?.pictures ?? []) if (picture.kind === 'new') URL.revokeObjectURL(picture.url);
    drafts.delete(key);
  },
};

/** Stored pictures first, then new ones: the order the API keeps (`filenames[]`, then `file[]`). */
export function toFormData(draft: LicenseDraft): FormData {
  const data = new FormData();
  data.append('name', draft.name);
  data.append('description', draft.description);
  data.append('price', normalizePrice(draft.price));
  data.append('published', draft.published ? 'true' : 'false');
  if (draft.updatedAt) data.append('updated_at', draft.updatedAt);
  draft.pictures
    .filter((p) => p.kind === 'stored')
    .forEach((p, i) => {
      data.append(`filenames[${i}]`, p.filename);
    });
  draft.pictures
    .filter((p) => p.kind === 'new')
    .forEach((p, i) => {
      data.append(`file[${i}]`, p.file, p.file.name);
    });
  return data;
}
